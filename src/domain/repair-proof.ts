import type { RepairOperationConfig } from "./repair-config.js";
import type { RepairEntry } from "./repair-entry.js";
import { canonicalEvidence, describeEvidence, sameEvidence, startEvidence, usableBootId, type EvidenceSignal, type ProofSignal, type RepairEvidence, type SuccessProof } from "./repair-evidence.js";
import type { EntryTransition, RepairEffect } from "./repair-plan.js";
import { waitForDwell, waitForProof, type WaitingFor } from "./repair-wait.js";

/** The signals as observed in one pass (only what an operation that requires proof needs is gathered). */
export interface ObservedProof {
  /** The Node's Ready condition is True; null when the machine is not a Kubernetes node. */
  readonly nodeReady: boolean | null;
  /** The Node's `status.nodeInfo.bootID`; null when the machine is not a node or the Node reports none. */
  readonly bootId: string | null;
  /** sabakan's state of the machine (upper-case); null when not asked or sabakan does not know the machine. */
  readonly sabakanState: string | null;
}

/** What the proof rule decided for an entry found healthy or unhealthy this pass. */
export type ProofVerdict =
  /** Every required signal held with the health check for the dwell: the entry may succeed. */
  | { readonly kind: "proven"; readonly transitions: EntryTransition[] }
  /**
   * No repair command has run for the entry and the machine is healthy by every signal that can hold without one:
   * the entry may succeed as CKE's does, with evidence saying nothing was repaired (so pacing counts it unproven).
   */
  | { readonly kind: "not-repaired"; readonly transitions: EntryTransition[] }
  /** Not (yet) proven: `wait` says why (the dwell until T, or the missing signals); `wakeAt` is the dwell's end. */
  | { readonly kind: "unproven"; readonly wait: WaitingFor; readonly transitions: EntryTransition[]; readonly wakeAt: number | null };

/** The operation's proof requirement, or null for none (CKE: the health check alone, at once). */
export function proofOf(op: RepairOperationConfig): SuccessProof | null {
  return op.successProof ?? null;
}

const step = (e: RepairEntry) => e.step + 1;

/**
 * The note that records the boot ID when a step's repair command is about to start, to append to the transitions
 * that start it (committed before the command runs): the entry carries fresh evidence for that step. null when the
 * operation requires no proof. `bootId` is the Node's boot ID as observed in the pass that starts the command.
 */
export function recordBootId(started: RepairEntry, op: RepairOperationConfig, bootId: string | null): EntryTransition | null {
  if (proofOf(op) === null) return null;
  const usable = usableBootId(bootId);
  const after: RepairEntry = { ...started, evidence: startEvidence(started.step, usable) };
  const what = usable === null ? "no boot ID known (the machine is not a Kubernetes node or reports no usable one)" : `boot ID ${usable}`;
  return { after, kind: "note", reason: `step ${step(started)}: proof of repair: ${what} recorded before the repair command` };
}

/**
 * Proof of repair (kintsugi's `success_requires` and `success_dwell_seconds`) for an entry with no job running whose
 * health check gave `healthy` this pass; null when its operation requires no proof (CKE's rule 3 applies as is).
 * Only evidence recorded when the current step's repair command started counts, so an entry that has not run it
 * (queued, waiting, draining) is never proven and goes on as an unhealthy one. Each signal's evidence: the health
 * check; `node_ready`: the Node's Ready condition is True; `boot_id_changed`: the Node reports a boot ID other than
 * the one recorded (an unknown one before or now never counts); `sabakan_healthy`: sabakan says HEALTHY. When all
 * hold, the dwell starts (or goes on); any relapse ends it, and it starts over when they all hold again. Proven once
 * they held together for `dwellSeconds`. Every change of the evidence is a history note carrying the new evidence.
 * An entry whose repair command never ran (no evidence at all: queued, or draining its first step) and whose machine
 * is healthy by the health check and every required signal but `boot_id_changed` (which only a repair can give)
 * is `not-repaired`: it succeeds as CKE's does, and no healthy machine is power-cycled to prove a repair it never
 * needed.
 */
export function judgeProof(entry: RepairEntry, op: RepairOperationConfig, healthy: boolean, observed: ObservedProof, now: number): ProofVerdict | null {
  const proof = proofOf(op);
  if (proof === null) return null;
  const before = entry.evidence;
  if (before === undefined && healthy) {
    const notRepaired = healthyBeforeRepair(entry, proof, observed, now);
    if (notRepaired) return notRepaired;
  }
  if (before === undefined || before.step !== entry.step || entry.status !== "processing" || entry.stepStatus !== "watching") {
    return { kind: "unproven", wait: waitForProof(`the repair command of step ${step(entry)} has not run`), transitions: [], wakeAt: null };
  }
  const bootId = usableBootId(observed.bootId);
  const holds: Record<EvidenceSignal, boolean> = {
    health_check: healthy,
    node_ready: observed.nodeReady === true,
    boot_id_changed: before.bootIdBefore !== null && bootId !== null && bootId !== before.bootIdBefore,
    sabakan_healthy: observed.sabakanState === "HEALTHY",
  };
  const tracked: EvidenceSignal[] = ["health_check", ...proof.requires];
  const since: Partial<Record<EvidenceSignal, number>> = {};
  for (const s of tracked) if (holds[s]) since[s] = before.since[s] ?? now;
  const missing = tracked.filter((s) => !holds[s]);
  const bootIdAfter = bootId ?? before.bootIdAfter;

  if (missing.length > 0) {
    const after = evolve(entry, { ...before, bootIdAfter, since, dwellStartedAt: null, provenAt: null });
    const relapse = before.dwellStartedAt !== null ? `relapse (${missing.join(", ")} no longer holds): the dwell restarts when every signal holds again` : null;
    const transitions = noteIf(entry, after, relapse ?? `signals now missing: ${missing.join(", ")}`);
    return { kind: "unproven", wait: waitForProof(missing.join(", ")), transitions, wakeAt: null };
  }
  const starting = before.dwellStartedAt === null;
  const dwellStartedAt = before.dwellStartedAt ?? now;
  const dwellEnd = dwellStartedAt + proof.dwellSeconds * 1000;
  const dwellStarts = before.dwellStarts + (starting ? 1 : 0);
  if (now >= dwellEnd) {
    const after = evolve(entry, { ...before, bootIdAfter, since, dwellStartedAt, dwellStarts, provenAt: before.provenAt ?? now });
    return { kind: "proven", transitions: noteIf(entry, after, "repair proven") };
  }
  const after = evolve(entry, { ...before, bootIdAfter, since, dwellStartedAt, dwellStarts, provenAt: null });
  const event = starting ? (dwellStarts > 1 ? `dwell restarted (start ${dwellStarts})` : "dwell started") : "signals changed";
  return { kind: "unproven", wait: waitForDwell(proof.dwellSeconds, dwellEnd), transitions: noteIf(entry, after, `${event}; proven at ${new Date(dwellEnd).toISOString()} if every signal holds`), wakeAt: dwellEnd };
}

/** The `not-repaired` verdict of an entry that never ran its repair command, or null when a required signal fails. */
function healthyBeforeRepair(entry: RepairEntry, proof: SuccessProof, observed: ObservedProof, now: number): ProofVerdict | null {
  const holdsNow = (s: ProofSignal) => (s === "node_ready" ? observed.nodeReady === true : s === "sabakan_healthy" ? observed.sabakanState === "HEALTHY" : true);
  if (!proof.requires.every(holdsNow)) return null;
  const since: Partial<Record<EvidenceSignal, number>> = { health_check: now };
  for (const s of proof.requires) if (s !== "boot_id_changed") since[s] = now;
  const after = evolve(entry, { ...startEvidence(entry.step, null), bootIdAfter: usableBootId(observed.bootId), since });
  return { kind: "not-repaired", transitions: noteIf(entry, after, "healthy before any repair command ran: nothing was repaired, so nothing is proven; the entry succeeds as CKE's does") };
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
export function withBootIdRecorded<P extends { readonly transitions: EntryTransition[]; readonly effect: RepairEffect }>(progress: P, op: RepairOperationConfig, bootId: string | null): P {
  const started = progress.transitions.at(-1)?.after;
  if (progress.effect.kind !== "repair-command" || started === undefined) return progress;
  const note = recordBootId(started, op, bootId);
  return note === null ? progress : { ...progress, transitions: [...progress.transitions, note] };
}
