import { isBackedOff, isWaitingForBackoff } from "../domain/queue/drain-backoff.js";
import { findRepairOperation, type RepairConfig } from "../domain/queue/repair-config.js";
import { isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import type { RunningJob } from "../domain/queue/repair-plan.js";
import type { WaitingFor } from "../domain/queue/repair-wait.js";
import type { Checks } from "./sim-checks.js";
import { bootingAfterCommand, commandMayStillRun, cordonedFor, cordonedForEntry } from "./sim-truth.js";
import type { SimWorld } from "./sim-world.js";

export type { Violation } from "./sim-checks.js";

/** What the pass invariants read after a pass. */
export interface PassView {
  readonly now: number;
  /** Every entry in the queue after the pass, finished or not. */
  readonly entries: readonly RepairEntry[];
  readonly jobOf: (index: number) => RunningJob;
  /** Found healthy (and proven), it finishes: its success command runs or was decided; no slot, no turn (CKE's RepairFinishOp). */
  readonly finishing: (index: number) => boolean;
  readonly commandsRunning: ReadonlySet<string>;
  /** The repair config in force. */
  readonly repair: RepairConfig;
  /** The queue was enabled as the pass ran. */
  readonly queueEnabled: boolean;
  /** The pass ran to its end (a failed node listing fails it: it decides nothing). */
  readonly passWorked: boolean;
  /** Kubernetes answered every call of the pass (an uncordon it failed is retried by the next pass). */
  readonly kubernetesAnswered: boolean;
  /** The entries marked deleted before the pass (a working pass dequeues them). */
  readonly deletedBefore: ReadonlySet<number>;
  /** The fence's margin for inherited commands; null: the runner has no fence. */
  readonly fenceMarginSeconds: number | null;
  /** etcd was good for repair as the pass ran; when not, nothing happens to any entry (CKE's DecideOps drops every repair operation). */
  readonly etcdGood: boolean;
  /** What the runner says the entry waits for after the pass. */
  readonly waitingFor: (index: number) => WaitingFor | null;
  /** Whether an operator's hold is on the machine now. */
  readonly held: (address: string) => boolean;
}

/**
 * The invariants checked after every pass, over every entry, finished or not: control planes disrupted one at a
 * time and at most max_concurrent_repairs machines (counting a machine that boots after its entry's command), one
 * entry repairing a machine, no entry lost, drains timed out when due, no cordon without an entry that needs it,
 * nothing drained while the queue is disabled, deletions dequeued, and every entry in a state its operation has.
 */
export class PassInvariants {
  private readonly seen = new Map<number, boolean>();
  /** Each finished entry as first seen finished: it never changes again but for its deletion. */
  private readonly finished = new Map<number, string>();
  /** After the config in force lowered max_concurrent_repairs: the earlier limit, until the entries it let start are down to the new one. */
  private carriedLimit = 0;

  constructor(
    private readonly checks: Checks,
    private readonly world: SimWorld,
  ) {}

  /** Every committed change of an entry: whether its deletion was requested (only then may it leave the queue). */
  committed(index: number, created: boolean, deleted: boolean, address: string): void {
    this.checks.check("no-entry-duplicated", !(created && this.seen.has(index)), () => `entry ${index} was created twice`, address, index);
    this.seen.set(index, deleted || this.seen.get(index) === true);
  }

  /** The repair config changed: the entries the old one let start keep their slots until they are done. */
  configChanged(previousMax: number): void {
    this.carriedLimit = Math.max(this.carriedLimit, previousMax);
  }

  afterPass(view: PassView): void {
    const { checks, world } = this;
    const { now, repair } = view;
    const unfinished = view.entries.filter((e) => !isFinished(e) && !e.deleted);
    const planes = world.machines.filter(
      (m) =>
        m.role === "control-plane" &&
        // A cordon whose entry finishes is lifted as its success command ends (the machine is healthy).
        // A pass whose uncordon the API refused leaves a stray cordon for the next pass to lift: not a disruption.
        ((view.kubernetesAnswered && cordonedFor(m) !== null && !view.finishing(cordonedFor(m) as number)) ||
          view.commandsRunning.has(m.address) ||
          bootingAfterCommand(m, now) ||
          unfinished.some((e) => e.address === m.address && view.jobOf(e.index) === "drain")),
    );
    checks.check(
      "one-control-plane-disrupted",
      planes.length <= 1,
      () => `control planes ${planes.map((m) => m.address).join(", ")} are disrupted at once`,
      planes[1]?.address ?? null,
    );

    // A worker entry mid-repair holds its slot whatever holds it (a drain back-off excepted); a control plane's may
    // give it up to another control plane, so only what disrupts it counts.
    const slots = unfinished.filter((e) => {
      const job = view.jobOf(e.index);
      if (job === "drain" || job === "repair-command") return true;
      // Found healthy, it finishes (its success command runs, then its node is uncordoned): it holds no slot.
      if (view.finishing(e.index) || e.status !== "processing" || isWaitingForBackoff(e, now)) return false;
      const m = world.at(e.address);
      if (!m) return false;
      return (
        (view.kubernetesAnswered && cordonedForEntry(m, e)) ||
        (m.role === "worker" && !isBackedOff(e) && e.stepStatus === "watching" && m.bootedBy === e.index && bootingAfterCommand(m, now))
      );
    });
    const limit = Math.max(repair.maxConcurrentRepairs, this.carriedLimit);
    // The entries the old limit let start keep their slots until fewer are in progress than the new limit.
    const inProgress = unfinished.filter((e) => e.status === "processing" && !isWaitingForBackoff(e, now)).length;
    if (inProgress <= repair.maxConcurrentRepairs) this.carriedLimit = 0;
    checks.check(
      "max-concurrent-repairs",
      slots.length <= limit,
      () => `${slots.length} entries (${slots.map((e) => e.index).join(", ")}) are repairing at once, max_concurrent_repairs is ${repair.maxConcurrentRepairs}`,
      slots[0]?.address ?? null,
      slots[0]?.index ?? null,
    );

    const processing = new Map<string, number>();
    for (const e of unfinished) {
      if (e.status !== "processing") continue;
      const other = processing.get(e.address);
      checks.check("one-entry-repairs-a-machine", other === undefined, () => `entries ${other} and ${e.index} both repair ${e.address}`, e.address, e.index);
      processing.set(e.address, e.index);
    }

    const present = new Set(view.entries.map((e) => e.index));
    checks.count("no-entry-lost");
    for (const [index, deleted] of this.seen) {
      if (present.has(index)) continue;
      if (!deleted)
        checks.fail({ invariant: "no-entry-lost", message: `entry ${index} left the queue without a deletion request`, address: null, entryIndex: index });
      this.seen.delete(index);
    }
    if (view.passWorked && view.etcdGood) this.afterWorkingPass(view, unfinished);
    this.turnNotKeptByAHold(view, unfinished);
    this.entryStates(view);
  }

  /** What a pass that ran to its end must have done (one that found etcd not good for repair does nothing). */
  private afterWorkingPass(view: PassView, unfinished: readonly RepairEntry[]): void {
    const { checks, world } = this;
    const { now, repair } = view;
    for (const e of unfinished) {
      if (e.stepStatus !== "draining" || view.jobOf(e.index) === "success-command") continue;
      const deadline = (e.lastTransitionTime ?? 0) + repair.evictionTimeoutSeconds * 1000;
      checks.check(
        "drain-times-out",
        deadline >= now,
        () => `entry ${e.index} is still draining ${Math.round((now - deadline) / 1000)} s past its eviction timeout`,
        e.address,
        e.index,
      );
      checks.check(
        "nothing-drains-while-disabled",
        view.queueEnabled,
        () => `entry ${e.index} is still draining after a pass with the repair queue disabled`,
        e.address,
        e.index,
      );
    }
    const stillIn = new Map(view.entries.map((e) => [e.index, e]));
    for (const index of view.deletedBefore) {
      const left = stillIn.get(index);
      // Its command, started by another replica, may still run: it leaves once that has certainly ended.
      const fenced = left !== undefined && commandMayStillRun(left, view.fenceMarginSeconds, view.now);
      checks.check(
        "deletion-dequeued",
        left === undefined || fenced,
        () => `entry ${index} was marked deleted and is still in the queue after a pass, with no command that may still run for it`,
        null,
        index,
      );
    }
    if (!view.kubernetesAnswered) return;
    const byIndex = new Map(view.entries.map((e) => [e.index, e]));
    for (const m of world.machines) {
      const owner = cordonedFor(m);
      if (owner === null) continue;
      const e = byIndex.get(owner);
      // A deleted entry keeps its cordon while it stays for a command that may still run on the machine.
      const leaving = e !== undefined && e.deleted && commandMayStillRun(e, view.fenceMarginSeconds, view.now);
      const needs = e !== undefined && e.status === "processing" && (!e.deleted || leaving) && !isBackedOff(e);
      checks.check(
        "no-stray-cordon",
        needs,
        () => `${m.address} stays cordoned for entry ${owner}, which is ${e ? `${e.status}/${e.stepStatus}` : "gone"}`,
        m.address,
        owner,
      );
    }
  }

  /**
   * The one-control-plane turn is never kept from a control plane that is not Ready by one that is held (a hold stops
   * an entry's commands, never another control plane's repair): a held control plane with no job running gives the
   * turn up to the dead one, as any other the yield rule names (unless CKE reboots a control plane: then none moves).
   */
  private turnNotKeptByAHold(view: PassView, unfinished: readonly RepairEntry[]): void {
    const planes = this.world.machines.filter((m) => m.role === "control-plane");
    if (planes.some((m) => m.rebootUntil > view.now)) return;
    const byIndex = new Map(unfinished.map((e) => [e.index, e]));
    for (const e of unfinished) {
      const m = this.world.at(e.address);
      if (m?.role !== "control-plane" || m.ready) continue;
      const w = view.waitingFor(e.index);
      if (w?.kind !== "CONTROL_PLANE" || !w.message.startsWith("one control plane at a time") || w.entryIndex === undefined) continue;
      const holder = byIndex.get(w.entryIndex);
      if (!holder || holder.status !== "processing" || view.jobOf(holder.index) !== "none") continue;
      this.checks.check(
        "control-plane-turn-not-kept-by-a-hold",
        !view.held(holder.address),
        () => `entry ${e.index} of control plane ${e.address}, not Ready, waits for the turn of entry ${holder.index}, whose machine is held`,
        e.address,
        e.index,
      );
    }
  }

  /** Every entry is in a state its operation allows, and a finished one never changes again but to be deleted. */
  private entryStates(view: PassView): void {
    const { checks } = this;
    for (const e of view.entries) {
      if (isFinished(e)) {
        // An operator's reset of the back-offs resets finished entries' too (CKE's ResetBackoff resets every entry).
        const state = JSON.stringify({ ...e, deleted: false, drainBackoffCount: 0, drainBackoffExpire: null });
        const before = this.finished.get(e.index);
        checks.check(
          "entry-state",
          before === undefined || before === state,
          () => `finished entry ${e.index} changed: ${before} -> ${state}`,
          e.address,
          e.index,
        );
        this.finished.set(e.index, state);
        continue;
      }
      const found = findRepairOperation(view.repair, e.machineType, e.operation);
      const steps = found.ok ? found.operation.repairSteps.length : null;
      const ok = e.status === "queued" ? e.step === 0 && e.stepStatus === "waiting" : steps === null || e.step < steps;
      checks.check(
        "entry-state",
        ok,
        () => `entry ${e.index} is ${e.status}/${e.step}/${e.stepStatus}, which its operation (${steps} steps) does not allow`,
        e.address,
        e.index,
      );
    }
    const present = new Set(view.entries.map((e) => e.index));
    for (const index of this.finished.keys()) if (!present.has(index)) this.finished.delete(index);
  }
}
