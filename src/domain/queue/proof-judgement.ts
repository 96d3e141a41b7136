import type { RepairOperationConfig } from "./repair-config.js";
import type { RepairEntry } from "./repair-entry.js";
import {
  canonicalEvidence,
  describeEvidence,
  sameEvidence,
  startEvidence,
  usableBootId,
  type EvidenceSignal,
  type ObservedProof,
  type ProofSignal,
  type RepairEvidence,
  type SuccessProof,
} from "../proof/repair-evidence.js";
import type { EntryTransition, RepairEffect } from "./repair-plan.js";
import { waitForDwell, waitForProof, type WaitingFor } from "./repair-wait.js";

/** What the proof rule decided for an entry found healthy or unhealthy this pass. */
export type ProofVerdict =
  /** Every required signal held with the health check for the dwell: the entry may succeed. */
  | { readonly kind: "proven"; readonly transitions: EntryTransition[] }
  /**
   * No repair command has run for the entry and the machine is healthy by every signal that can hold without one:
   * the entry may succeed as CKE's does, with evidence saying nothing was repaired (so pacing counts it unproven).
   */
  | { readonly kind: "not-repaired"; readonly transitions: EntryTransition[] }
  /**
   * Not (yet) proven: `wait` says why (the dwell until T, or the missing signals); `wakeAt` is the dwell's end;
   * `dwelling`: every signal holds and the dwell runs, so the entry is recovering as asked and is not to be disrupted
   * (so too when the health check holds and a signal is unknown while every other holds: see judgeProof).
   */
  | {
      readonly kind: "unproven";
      readonly wait: WaitingFor;
      readonly transitions: EntryTransition[];
      readonly wakeAt: number | null;
      readonly dwelling: boolean;
    };

/** The operation's proof requirement, or null for none (CKE: the health check alone, at once). */
export function proofOf(op: RepairOperationConfig): SuccessProof | null {
  return op.successProof ?? null;
}

const step = (e: RepairEntry) => e.step + 1;

/**
 * The note that records the boot ID when the entry's first repair command is about to start, to append to the
 * transitions that start it (committed before the command runs): the evidence gathering starts there. null when the
 * operation requires no proof, or when an earlier step's command started the gathering already (its evidence goes
 * on counting). `bootId` is the Node's boot ID as observed in the pass that starts the command.
 */
export function recordBootId(started: RepairEntry, op: RepairOperationConfig, bootId: string | null): EntryTransition | null {
  if (proofOf(op) === null || started.evidence !== undefined) return null;
  const usable = usableBootId(bootId);
  const after: RepairEntry = { ...started, evidence: startEvidence(started.step, usable) };
  const what = usable === null ? "no boot ID known (the machine is not a Kubernetes node or reports no usable one)" : `boot ID ${usable}`;
  return { after, kind: "note", reason: `step ${step(started)}: proof of repair: ${what} recorded before the repair command` };
}

/**
 * Proof of repair (kintsugi's `success_requires` and `success_dwell_seconds`) for an entry with no job running whose
 * health check gave `healthy` this pass; null when its operation requires no proof (CKE's rule 3 applies as is).
 * The evidence gathered since the entry's first repair command counts, whichever step gathered it and whatever the
 * entry does now (watching, waiting for its next step, draining it, backing off): a machine that recovers late is
 * proven as well as one that recovers at once. An entry whose repair command never ran has no evidence and is never
 * proven. Each signal's evidence: the health check; `node_ready`: the Node's Ready condition is True;
 * `boot_id_changed`: the Node reports a boot ID other than the one recorded before the first repair command (an
 * unknown one before or now never counts); `sabakan_healthy`: sabakan says HEALTHY. `node_ready` and
 * `boot_id_changed` do not apply to a machine that is not a Kubernetes node (`observed.nodeReady` null): its proof
 * is the health check and the signals that do apply, and the history notes say so. When all that apply hold, the
 * dwell starts (or goes on); any relapse ends it, and it starts over when they all hold again. Proven once they held
 * together for `dwellSeconds`. Every change of the evidence is a history note carrying the new evidence.
 * An entry whose repair command never ran (no evidence at all: queued, or draining its first step) and whose machine
 * is healthy by the health check and every applicable signal but `boot_id_changed` (which only a repair can give)
 * is `not-repaired`: it succeeds as CKE's does, and no healthy machine is power-cycled to prove a repair it never
 * needed.
 * A signal whose source could not be asked (`observed.unknown`) neither holds nor fails: with the health check healthy
 * and every other signal holding, the proof waits, the evidence unchanged (a dwell neither restarts nor ends), and
 * the entry is not to be disrupted (`dwelling`): an outage of sabakan is not a relapse of the machine.
 */
export function judgeProof(entry: RepairEntry, op: RepairOperationConfig, healthy: boolean, observed: ObservedProof, now: number): ProofVerdict | null {
  const proof = proofOf(op);
  if (proof === null) return null;
  const notNode = observed.nodeReady === null ? proof.requires.filter((s) => NODE_SIGNALS.has(s)) : [];
  const requires = proof.requires.filter((s) => !notNode.includes(s));
  const aside = notNode.length === 0 ? "" : ` (${notNode.join(", ")} do not apply: the machine is not a Kubernetes node)`;
  const before = entry.evidence;
  const unknown: readonly EvidenceSignal[] = requires.filter((s) => observed.unknown?.includes(s) ?? false);
  if (before === undefined && healthy) {
    if (unknown.length > 0 && requires.every((s) => unknown.includes(s) || holdsBeforeRepair(s, observed))) return waitForUnknown(unknown);
    const notRepaired = healthyBeforeRepair(entry, requires, observed, now, aside);
    if (notRepaired) return notRepaired;
  }
  if (before === undefined) {
    return { kind: "unproven", wait: waitForProof("no repair command has run"), transitions: [], wakeAt: null, dwelling: false };
  }
  const bootId = usableBootId(observed.bootId);
  const holds: Record<EvidenceSignal, boolean> = {
    health_check: healthy,
    node_ready: observed.nodeReady === true,
    boot_id_changed: before.bootIdBefore !== null && bootId !== null && bootId !== before.bootIdBefore,
    sabakan_healthy: observed.sabakanState === "HEALTHY",
  };
  const tracked: EvidenceSignal[] = ["health_check", ...requires];
  const since: Partial<Record<EvidenceSignal, number>> = {};
  for (const s of tracked) if (holds[s]) since[s] = before.since[s] ?? now;
  const missing = tracked.filter((s) => !holds[s] && !unknown.includes(s));
  const bootIdAfter = bootId ?? before.bootIdAfter;

  if (missing.length === 0 && unknown.length > 0) return waitForUnknown(unknown);
  if (missing.length > 0) {
    const after = evolve(entry, { ...before, bootIdAfter, since, dwellStartedAt: null, provenAt: null });
    const relapse = before.dwellStartedAt !== null ? `relapse (${missing.join(", ")} no longer holds): the dwell restarts when every signal holds again` : null;
    const transitions = noteIf(entry, after, (relapse ?? `signals now missing: ${missing.join(", ")}`) + aside);
    return { kind: "unproven", wait: waitForProof(missing.join(", ")), transitions, wakeAt: null, dwelling: false };
  }
  const starting = before.dwellStartedAt === null;
  const dwellStartedAt = before.dwellStartedAt ?? now;
  const dwellEnd = dwellStartedAt + proof.dwellSeconds * 1000;
  const dwellStarts = before.dwellStarts + (starting ? 1 : 0);
  if (now >= dwellEnd) {
    const after = evolve(entry, { ...before, bootIdAfter, since, dwellStartedAt, dwellStarts, provenAt: before.provenAt ?? now });
    return { kind: "proven", transitions: noteIf(entry, after, "repair proven" + aside) };
  }
  const after = evolve(entry, { ...before, bootIdAfter, since, dwellStartedAt, dwellStarts, provenAt: null });
  const event = starting ? (dwellStarts > 1 ? `dwell restarted (start ${dwellStarts})` : "dwell started") : "signals changed";
  const transitions = noteIf(entry, after, `${event}; proven at ${new Date(dwellEnd).toISOString()} if every signal holds${aside}`);
  return { kind: "unproven", wait: waitForDwell(proof.dwellSeconds, dwellEnd), transitions, wakeAt: dwellEnd, dwelling: true };
}

/** The signals only a Kubernetes node can give. */
const NODE_SIGNALS: ReadonlySet<ProofSignal> = new Set(["node_ready", "boot_id_changed"]);

/** The proof waits for a signal nobody could read: nothing is written, and the entry is not disrupted meanwhile. */
function waitForUnknown(unknown: readonly EvidenceSignal[]): ProofVerdict {
  return { kind: "unproven", wait: waitForProof(`${unknown.join(", ")} unknown (its source did not answer)`), transitions: [], wakeAt: null, dwelling: true };
}

/** Whether a required signal holds for an entry no repair command ran for (`boot_id_changed`: only a repair gives it). */
function holdsBeforeRepair(s: ProofSignal, observed: ObservedProof): boolean {
  return s === "node_ready" ? observed.nodeReady === true : s === "sabakan_healthy" ? observed.sabakanState === "HEALTHY" : true;
}

/** The `not-repaired` verdict of an entry that never ran its repair command, or null when a required signal fails. */
function healthyBeforeRepair(entry: RepairEntry, requires: readonly ProofSignal[], observed: ObservedProof, now: number, aside: string): ProofVerdict | null {
  if (!requires.every((s) => holdsBeforeRepair(s, observed))) return null;
  const since: Partial<Record<EvidenceSignal, number>> = { health_check: now };
  for (const s of requires) if (s !== "boot_id_changed") since[s] = now;
  const after = evolve(entry, { ...startEvidence(entry.step, null), bootIdAfter: usableBootId(observed.bootId), since });
  return {
    kind: "not-repaired",
    transitions: noteIf(
      entry,
      after,
      `healthy before any repair command ran: nothing was repaired, so nothing is proven; the entry succeeds as CKE's does${aside}`,
    ),
  };
}

function evolve(entry: RepairEntry, evidence: RepairEvidence): RepairEntry {
  return { ...entry, evidence: canonicalEvidence(evidence) };
}

/** A note carrying the new evidence, or nothing when the evidence did not change (nothing to write this pass). */
function noteIf(entry: RepairEntry, after: RepairEntry, what: string): EntryTransition[] {
  if (sameEvidence(after.evidence, entry.evidence)) return [];
  const evidence = after.evidence as RepairEvidence;
  return [{ after, kind: "note", reason: `step ${step(entry)}: proof of repair: ${what}`, detail: describeEvidence(evidence) }];
}

/**
 * `progress` with the boot ID recorded when it starts a step's repair command (see {@link recordBootId}): the note
 * goes last, so the entry the command runs for carries the step's fresh evidence. Unchanged otherwise.
 */
export function withBootIdRecorded<P extends { readonly transitions: EntryTransition[]; readonly effect: RepairEffect }>(
  progress: P,
  op: RepairOperationConfig,
  bootId: string | null,
): P {
  const started = progress.transitions.at(-1)?.after;
  if (progress.effect.kind !== "repair-command" || started === undefined) return progress;
  const note = recordBootId(started, op, bootId);
  return note === null ? progress : { ...progress, transitions: [...progress.transitions, note] };
}
