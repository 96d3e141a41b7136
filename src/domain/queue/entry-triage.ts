import type { RepairOperationConfig } from "./repair-config.js";
import { isFinished, truncateToSeconds, type RepairEntry } from "./repair-entry.js";
import { finishHealthy } from "./healthy-finish.js";
import { judgeProof, type ProofVerdict } from "./proof-judgement.js";
import { waitForMachine, type WaitingFor } from "./repair-wait.js";
import { isCheckable, type EntryTransition, type RepairAction, type RepairObservation, type RepairSnapshot } from "./repair-plan.js";
import type { InheritedCommand } from "./command-marker.js";
import { inheritedTransition } from "./entry-command.js";

const NO_OBSERVATION: RepairObservation = { nodename: "", job: "none", drainJobDone: false };
const NO_PROOF = { nodeReady: null, bootId: null, sabakanState: null };

/** An unfinished entry that competes for a slot, with what the first look at it found. */
export interface Contender {
  readonly entry: RepairEntry;
  readonly obs: RepairObservation;
  /** The entry with its current node name (`renamed` records the change, if any). */
  readonly current: RepairEntry;
  readonly renamed: EntryTransition[];
  readonly operation: RepairOperationConfig;
  /** kintsugi: what proof of repair decided this pass (operations that require proof). */
  readonly proof?: ProofVerdict;
  /** kintsugi: a command another replica started that may still run on the machine. */
  readonly fenced?: Extract<InheritedCommand, { kind: "may-run" }>;
}

/** A deleted entry that stays in the queue, keeping its machine, while the command another replica started for it may run. */
export interface LeavingEntry {
  readonly entry: RepairEntry;
  readonly fenced: Extract<InheritedCommand, { kind: "may-run" }>;
}

/** What the first look at every entry decided, and what it hands to the walk of the contenders. */
export interface EntryTriage {
  /** The dequeues, failures and healthy finishes decided now, in index order. */
  readonly actions: readonly RepairAction[];
  /** Healthy entries whose success command waits for another entry's command on the machine, with that wait. */
  readonly early: ReadonlyMap<number, WaitingFor>;
  /** The healthy entries whose success command starts on this pass (it takes no slot). */
  readonly finishing: ReadonlySet<number>;
  /** The machines a command runs on, may run on, or a success command starts on this pass, by the entry it is for. */
  readonly commandOn: ReadonlyMap<string, number>;
  /** The unfinished entries left to compete for a slot, in index order. */
  readonly contenders: readonly Contender[];
  /** The deleted entries that leave the queue only once their inherited command has certainly ended. */
  readonly leaving: readonly LeavingEntry[];
}

/**
 * The first look at every entry, rules 1 to 3 of decideRepairActions (repair-decision.ts): a deleted entry is
 * dequeued (or, fenced, leaves later), an entry whose procedure or operation is missing fails, an entry whose health
 * check said healthy (and, with proof of repair, proven) finishes; every other unfinished entry is a contender for a
 * slot, walked next (contender-walk.ts). `now` is milliseconds since the epoch.
 */
export function triageEntries(snapshot: RepairSnapshot, now: number): EntryTriage {
  const actions: RepairAction[] = [];
  const observe = (e: RepairEntry) => snapshot.observations.get(e.index) ?? NO_OBSERVATION;
  // kintsugi: the machines a command runs on (or may, started by another replica), by the entry it runs for, and
  // those a success command starts on this pass: no other entry's command, drain or success command starts there.
  const commandOn = machinesInCommand(snapshot.entries, observe);
  const early = new Map<number, WaitingFor>();
  const finishing = new Set<number>();
  const contenders: Contender[] = [];
  // kintsugi: deleted entries whose command, started by another replica, may still run (see deletedButFenced).
  const leaving: LeavingEntry[] = [];
  for (const entry of snapshot.entries) {
    if (entry.deleted) {
      const fenced = deletedButFenced(entry, observe(entry));
      if (fenced) leaving.push({ entry, fenced });
      else actions.push({ entry, transitions: [], effect: { kind: "dequeue" } });
      continue;
    }
    if (isFinished(entry)) continue;
    const obs = observe(entry);
    // kintsugi: a command another replica started may still run on the machine: nothing else happens to the entry
    // (but its deletion) until it has certainly ended; one that is over or never started is said in the history.
    const fenced = obs.inherited?.kind === "may-run" ? obs.inherited : undefined;
    const renamed = renamedTransitions(entry, obs);
    const inherited = obs.inherited;
    if (inherited?.kind === "interrupted") renamed.push(inheritedTransition(renamed.at(-1)?.after ?? entry, inherited, now));
    const current = renamed.at(-1)?.after ?? entry;
    // Said when something happens instead (the command runs now, or the entry succeeds), never by itself each pass.
    const neverStarted = inherited?.kind === "never-started" ? [inheritedTransition(current, inherited, now)] : [];
    const lookup = snapshot.repair.lookup(current);
    if ("message" in lookup) {
      const after: RepairEntry = { ...current, status: "failed", lastTransitionTime: truncateToSeconds(now) };
      actions.push({ entry, transitions: [...renamed, { after, kind: "transition", reason: lookup.message }], effect: { kind: "uncordon" } });
      continue;
    }
    if (fenced) {
      contenders.push({ entry, obs, current, renamed, operation: lookup.operation, fenced });
      continue;
    }
    // kintsugi: with proof of repair (see proof-judgement.ts), healthy is not enough: the evidence must hold too.
    const proof = isCheckable(obs.job) && obs.healthy !== undefined ? judgeProof(current, lookup.operation, obs.healthy, obs.proof ?? NO_PROOF, now) : null;
    if (isCheckable(obs.job) && obs.healthy === true && (proof === null || proof.kind !== "unproven")) {
      const finish = finishHealthy(entry, [...renamed, ...neverStarted, ...(proof?.transitions ?? [])], lookup.operation, snapshot.holds?.get(entry.address));
      const holder = commandOn.get(entry.address);
      if (!runsCommand(finish)) actions.push(finish);
      else if (holder === undefined || holder === entry.index) {
        commandOn.set(entry.address, entry.index);
        finishing.add(entry.index);
        actions.push(finish);
      } else {
        // Another entry's command runs on the machine: the success command waits until it has ended.
        early.set(entry.index, waitForMachine(entry.address, holder));
        if (renamed.length > 0) actions.push({ entry, transitions: renamed, effect: { kind: "none" } });
      }
      continue;
    }
    const proved = proof?.transitions ?? [];
    contenders.push({
      entry,
      obs,
      current: proved.at(-1)?.after ?? current,
      renamed: [...renamed, ...proved],
      operation: lookup.operation,
      ...(proof && { proof }),
    });
  }
  return { actions, early, finishing, commandOn, contenders, leaving };
}

/**
 * A deleted entry's inherited command that may still run for a known time: the entry leaves the queue only after it.
 * undefined: it leaves now (no such command, or one with no timeout, which only the operator can say has ended).
 */
function deletedButFenced(entry: RepairEntry, obs: RepairObservation): Extract<InheritedCommand, { kind: "may-run" }> | undefined {
  return entry.deleted && !isFinished(entry) && obs.inherited?.kind === "may-run" && obs.inherited.until !== null ? obs.inherited : undefined;
}

/** The machines a command of an entry runs on, or may run on (started by another replica), by that entry. */
function machinesInCommand(entries: readonly RepairEntry[], observe: (e: RepairEntry) => RepairObservation): Map<string, number> {
  const on = new Map<string, number>();
  for (const e of entries) {
    if (deletedButFenced(e, observe(e)) && !on.has(e.address)) on.set(e.address, e.index);
    if (e.deleted || isFinished(e)) continue;
    const obs = observe(e);
    if ((!isCheckable(obs.job) || obs.inherited?.kind === "may-run") && !on.has(e.address)) on.set(e.address, e.index);
  }
  return on;
}

/** Whether a healthy entry's finish runs a success command on the machine. */
function runsCommand(action: RepairAction): boolean {
  return action.effect.kind === "success-command" && action.effect.operation.successCommand !== null;
}

/** When the machine's node name changed since the entry was stored, a note recording the new name. */
function renamedTransitions(entry: RepairEntry, obs: RepairObservation): EntryTransition[] {
  if (obs === NO_OBSERVATION || obs.nodename === entry.nodename) return [];
  const reason = obs.nodename === "" ? `no Kubernetes node has address ${entry.address} now` : `the machine is Kubernetes node ${obs.nodename}`;
  return [{ after: { ...entry, nodename: obs.nodename }, kind: "note", reason }];
}
