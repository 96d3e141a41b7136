/** The signals an operation may require, besides its health check, before its entry succeeds (`success_requires`). */
export const PROOF_SIGNALS = ["node_ready", "boot_id_changed", "sabakan_healthy"] as const;
export type ProofSignal = (typeof PROOF_SIGNALS)[number];

/** What the evidence tracks: the health check and every signal an operation may require. */
export type EvidenceSignal = "health_check" | ProofSignal;

/** What an operation requires before its entry succeeds; absent on an operation: CKE's health check alone, at once. */
export interface SuccessProof {
  /** Distinct signals, in the order configured; may be empty when only a dwell is asked for. */
  readonly requires: readonly ProofSignal[];
  /** How long the health check and every required signal must hold together; 0 = at once. */
  readonly dwellSeconds: number;
}

/**
 * The proof of repair gathered for one step of an entry whose operation requires proof (kintsugi), kept on the entry
 * so it survives a restart or a change of leader. Times are milliseconds since the epoch.
 */
export interface RepairEvidence {
  /** The step (0-based) whose repair command started the gathering (the entry's first); it counts for every later step. */
  readonly step: number;
  /** The Node's `status.nodeInfo.bootID` when the first repair command started; null when none was known. */
  readonly bootIdBefore: string | null;
  /** The Node's boot ID as last observed while proving; null before any observation or when none was known. */
  readonly bootIdAfter: string | null;
  /** When each signal that holds now (the health check and the required ones) turned true; absent: not true now. */
  readonly since: Readonly<Partial<Record<EvidenceSignal, number>>>;
  /** When the health check and every required signal last began to hold together; null: they do not now. */
  readonly dwellStartedAt: number | null;
  /** How many times the dwell started (a relapse makes the next start a restart). */
  readonly dwellStarts: number;
  /** When the repair was proven (the dwell complete); null until then. */
  readonly provenAt: number | null;
}

/** The signals as observed in one pass (only what an operation that requires proof needs is gathered). */
export interface ObservedProof {
  /** The Node's Ready condition is True; null when the machine is not a Kubernetes node. */
  readonly nodeReady: boolean | null;
  /** The Node's `status.nodeInfo.bootID`; null when the machine is not a node or the Node reports none. */
  readonly bootId: string | null;
  /** sabakan's state of the machine (upper-case); null when not asked or sabakan does not know the machine. */
  readonly sabakanState: string | null;
  /** The signals whose source could not be asked this pass (sabakan did not answer); absent: none. */
  readonly unknown?: readonly ProofSignal[];
}

/** The longest boot ID kept (Linux reports a 36-character UUID). */
export const MAX_BOOT_ID_CHARS = 256;
const BOOT_ID = new RegExp(`^[\\x21-\\x7e]{1,${MAX_BOOT_ID_CHARS}}$`);

/**
 * A boot ID as a Node reports it, or null when it cannot be trusted as one: empty, longer than MAX_BOOT_ID_CHARS, or
 * holding anything but printable ASCII. A Node's status is written by whoever may update it: a hostile value must
 * neither flood the store and the history nor count as a change.
 */
export function usableBootId(reported: string | null | undefined): string | null {
  return typeof reported === "string" && BOOT_ID.test(reported) ? reported : null;
}

/** The evidence recorded when a step's repair command starts: the boot ID before it, nothing proven yet. */
export function startEvidence(step: number, bootIdBefore: string | null): RepairEvidence {
  return { step, bootIdBefore, bootIdAfter: null, since: {}, dwellStartedAt: null, dwellStarts: 0, provenAt: null };
}

const iso = (ms: number) => new Date(ms).toISOString();
const EVIDENCE_ORDER: readonly EvidenceSignal[] = ["health_check", ...PROOF_SIGNALS];

/**
 * The same evidence with its fields, and the signals of `since`, in one fixed order (the order the stores' schema
 * reads them back in), so an entry compares equal as text whichever code path built it.
 */
export function canonicalEvidence(e: RepairEvidence): RepairEvidence {
  const since: Partial<Record<EvidenceSignal, number>> = {};
  for (const s of EVIDENCE_ORDER) if (e.since[s] !== undefined) since[s] = e.since[s];
  return {
    step: e.step,
    bootIdBefore: e.bootIdBefore,
    bootIdAfter: e.bootIdAfter,
    since,
    dwellStartedAt: e.dwellStartedAt,
    dwellStarts: e.dwellStarts,
    provenAt: e.provenAt,
  };
}

/** The evidence in an operator's words, for the history: boot IDs, when each signal turned true, the dwell. */
export function describeEvidence(evidence: RepairEvidence): string {
  const parts = [`boot ID before ${evidence.bootIdBefore ?? "unknown"}, after ${evidence.bootIdAfter ?? "unknown"}`];
  const since = EVIDENCE_ORDER.flatMap((s) => (evidence.since[s] === undefined ? [] : [`${s} since ${iso(evidence.since[s])}`]));
  if (since.length > 0) parts.push(since.join(", "));
  if (evidence.dwellStartedAt !== null) parts.push(`dwell started ${iso(evidence.dwellStartedAt)} (start ${evidence.dwellStarts})`);
  else if (evidence.dwellStarts > 0) parts.push(`dwell not running (started ${evidence.dwellStarts} times)`);
  if (evidence.provenAt !== null) parts.push(`proven ${iso(evidence.provenAt)}`);
  return parts.join("; ");
}

/** Whether two evidences say the same, whatever order a store gave their fields in. */
export function sameEvidence(a: RepairEvidence | undefined, b: RepairEvidence | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const signals = (e: RepairEvidence) => EVIDENCE_ORDER.map((s) => e.since[s] ?? null);
  return (
    a.step === b.step &&
    a.bootIdBefore === b.bootIdBefore &&
    a.bootIdAfter === b.bootIdAfter &&
    a.dwellStartedAt === b.dwellStartedAt &&
    a.dwellStarts === b.dwellStarts &&
    a.provenAt === b.provenAt &&
    signals(a).every((t, i) => t === signals(b)[i])
  );
}

/** The signals that hold now and since when, in a fixed order (the health check first): what the API lists. */
export function evidenceSignals(evidence: RepairEvidence): Array<{ signal: EvidenceSignal; since: number }> {
  return EVIDENCE_ORDER.flatMap((signal) => {
    const since = evidence.since[signal];
    return since === undefined ? [] : [{ signal, since }];
  });
}

/** How a finished entry's proof of repair ended: for pacing, which doubles allowances on proven successes only. */
export type ProofOutcome = "proven" | "unproven";

/**
 * The proof outcome of a finished entry: undefined when it carries no evidence (its operation required no proof),
 * "proven" when its evidence (gathered since its first repair command, whichever step) was proven, "unproven" otherwise.
 */
export function proofOutcomeOf(entry: { readonly evidence?: RepairEvidence }): ProofOutcome | undefined {
  if (entry.evidence === undefined) return undefined;
  return entry.evidence.provenAt !== null ? "proven" : "unproven";
}
