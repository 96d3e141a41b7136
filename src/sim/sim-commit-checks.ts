import type { CommandOutcome } from "../adapters/ports.js";
import { findRepairOperation, type RepairConfig } from "../domain/queue/repair-config.js";
import { isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import type { RepairChange } from "../store/store-port.js";
import type { Checks } from "./sim-checks.js";
import type { CommandStart } from "./sim-commands.js";
import type { DisruptionInvariants } from "./sim-disruptions.js";
import type { PacingInvariant } from "./sim-pacing-check.js";

const stateOf = (e: RepairEntry) => `${e.status}/${e.step}/${e.stepStatus}${e.deleted ? " deleted" : ""}`;
const sameState = (a: RepairEntry, b: RepairEntry) =>
  stateOf(a) === stateOf(b) &&
  a.lastTransitionTime === b.lastTransitionTime &&
  a.drainBackoffCount === b.drainBackoffCount &&
  a.drainBackoffExpire === b.drainBackoffExpire &&
  a.nodename === b.nodename;

/**
 * The invariants checked on every committed change of an entry: its history in order (each record after the last,
 * saying what the entry became, and written over the entry as last committed: no update lost), legal transitions
 * (a finished entry never moves again, nothing goes back to queued, steps one at a time), a watch that ends only at
 * its time and never for a machine its pass found healthy, a success only for a machine found healthy (proven, with
 * the dwell respected, when the operation requires proof; never after a failed success command), a failure by the
 * command only after every retry, and pacing's allowance at every start.
 */
export class CommitInvariants {
  /** The entries as last committed. */
  readonly current = new Map<number, RepairEntry>();
  private readonly last = new Map<number, { sequence: number; time: number }>();
  private readonly attempts = new Map<string, number>();
  private readonly commanded = new Set<number>();
  private readonly commandFailedAt = new Map<number, number>();
  private readonly successFailedAt = new Map<number, number>();
  private readonly successEnded = new Map<number, { at: number; ok: boolean }>();

  constructor(
    private readonly checks: Checks,
    private readonly disruptions: DisruptionInvariants,
    private readonly repair: () => RepairConfig,
    private readonly now: () => number,
    private readonly pacing: PacingInvariant | null,
  ) {}

  commandStarted(start: CommandStart): void {
    if (start.entryIndex === null || start.kind !== "repair") return;
    const key = `${start.entryIndex}:${start.step}`;
    this.attempts.set(key, (this.attempts.get(key) ?? 0) + 1);
    this.commanded.add(start.entryIndex);
  }

  commandEnded(start: CommandStart, outcome: CommandOutcome): void {
    if (start.entryIndex === null || outcome.kind === "aborted") return;
    if (start.kind === "repair" && outcome.kind !== "ok") this.commandFailedAt.set(start.entryIndex, this.now());
    if (start.kind === "success") this.successEnded.set(start.entryIndex, { at: this.now(), ok: outcome.kind === "ok" });
    if (start.kind === "success" && outcome.kind !== "ok") this.successFailedAt.set(start.entryIndex, this.now());
  }

  committed(change: RepairChange): void {
    const { checks } = this;
    const { entry, previous, record } = change;
    const i = entry.index;
    const last = this.last.get(i);
    const known = this.current.get(i);
    checks.check(
      "history-in-order",
      (last === undefined || (record.sequence > last.sequence && record.time >= last.time)) &&
        record.status === entry.status &&
        record.step === entry.step &&
        record.stepStatus === entry.stepStatus &&
        record.deleted === entry.deleted &&
        (previous === null || known === undefined || sameState(previous, known)),
      () =>
        `entry ${i}: record ${record.sequence} (${record.kind}, ${new Date(record.time).toISOString()}, ${record.status}/${record.step}/${record.stepStatus}) after ${last?.sequence}` +
        ` is out of order, does not say what the entry became (${stateOf(entry)}), or was written over ${previous ? stateOf(previous) : "nothing"} where ${known ? stateOf(known) : "nothing"} was committed`,
      entry.address,
      i,
    );
    this.last.set(i, { sequence: record.sequence, time: record.time });
    if (record.kind === "dequeued") this.forget(i);
    else this.current.set(i, entry);
    if (previous === null) return;
    this.transition(previous, entry, record.time);
  }

  private transition(previous: RepairEntry, entry: RepairEntry, at: number): void {
    const { checks } = this;
    const i = entry.index;
    const legal = isFinished(previous)
      ? previous.status === entry.status && previous.step === entry.step && previous.stepStatus === entry.stepStatus
      : !(previous.status === "processing" && entry.status === "queued") &&
        entry.step >= previous.step &&
        entry.step <= previous.step + 1 &&
        (entry.status !== "queued" || (entry.step === 0 && entry.stepStatus === "waiting"));
    checks.check("transition-legal", legal, () => `entry ${i} went from ${stateOf(previous)} to ${stateOf(entry)}`, entry.address, i);
    const failedByCommand = this.commandFailedAt.get(i) === at;
    const failedBySuccessCommand = this.successFailedAt.get(i) === at;
    this.commandFailedAt.delete(i);
    this.successFailedAt.delete(i);
    if (isFinished(previous)) return;
    if (isFinished(entry)) this.pacing?.finished(entry, at);
    const found = findRepairOperation(this.repair(), entry.machineType, entry.operation);
    if (!found.ok) return;
    const op = found.operation;
    const answer = this.disruptions.answerOf(i);
    const watchEnded =
      previous.stepStatus === "watching" &&
      !entry.deleted &&
      (entry.step > previous.step || (entry.status === "failed" && !failedByCommand && !failedBySuccessCommand));
    if (watchEnded) {
      const watch = op.repairSteps[previous.step]?.watchSeconds ?? 0;
      const end = (previous.lastTransitionTime ?? 0) + watch * 1000;
      checks.check(
        "watch-ends-at-its-time",
        watch === 0 || end < at,
        () => `entry ${i}'s watch of step ${previous.step + 1} ended ${Math.round((end - at) / 1000)} s early (${watch} s)`,
        entry.address,
        i,
      );
      checks.check(
        "no-watch-end-on-a-healthy-machine",
        answer !== undefined && answer.proven !== true,
        () =>
          answer === undefined
            ? `entry ${i}'s watch ended (${stateOf(entry)}) with no health check of its machine in the pass that ended it`
            : `entry ${i}'s watch ended (${stateOf(entry)}) although its pass found the machine healthy by every signal`,
        entry.address,
        i,
      );
    }
    if (entry.status === "succeeded") this.succeeded(entry, at);
    if (entry.status === "failed" && failedByCommand) {
      const retries = op.repairSteps[previous.step]?.commandRetries ?? 0;
      const tries = this.attempts.get(`${i}:${previous.step}`) ?? 0;
      checks.check(
        "command-retries-exhausted",
        tries === retries + 1,
        () => `entry ${i} failed by its command after ${tries} attempts (command_retries ${retries})`,
        entry.address,
        i,
      );
    }
    if (previous.status === "queued" && entry.status === "processing") this.pacing?.starts(entry, this.current, at);
  }

  private succeeded(entry: RepairEntry, at: number): void {
    const { checks } = this;
    const i = entry.index;
    const answer = this.disruptions.lastAnswer.get(i);
    checks.check(
      "succeeds-only-when-healthy",
      answer?.healthy === true,
      () => `entry ${i} succeeded though its last health check said ${answer ? "unhealthy" : "nothing"}`,
      entry.address,
      i,
    );
    const success = this.successEnded.get(i);
    checks.check(
      "no-success-after-a-failed-success-command",
      !success || !answer || success.at < answer.at || success.ok,
      () => `entry ${i} succeeded though its success command failed`,
      entry.address,
      i,
    );
    const proof = findRepairOperation(this.repair(), entry.machineType, entry.operation);
    const required = proof.ok ? proof.operation.successProof : undefined;
    if (!required) return;
    checks.check(
      "proven-by-every-signal",
      answer?.proven === true,
      () => `entry ${i} succeeded though a signal its proof requires did not hold`,
      entry.address,
      i,
    );
    const evidence = entry.evidence;
    if (evidence && evidence.provenAt !== null) {
      const dwelt = evidence.provenAt - (evidence.dwellStartedAt ?? evidence.provenAt);
      checks.check(
        "proof-dwell-respected",
        dwelt >= required.dwellSeconds * 1000,
        () => `entry ${i} was proven after a dwell of ${dwelt / 1000} s (${required.dwellSeconds} s required)`,
        entry.address,
        i,
      );
    } else {
      checks.check(
        "no-success-without-proof",
        !this.commanded.has(i),
        () => `entry ${i} succeeded unproven after its repair command ran (${at})`,
        entry.address,
        i,
      );
    }
  }

  private forget(i: number): void {
    this.current.delete(i);
    this.commanded.delete(i);
    this.successEnded.delete(i);
    for (const key of this.attempts.keys()) if (key.startsWith(`${i}:`)) this.attempts.delete(key);
  }
}
