import { isHoldActive } from "../domain/holds/machine-holds.js";
import { isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import type { RepairHistoryRecord } from "../domain/queue/repair-history.js";
import type { RunningJob } from "../domain/queue/repair-plan.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";
import type { RepairChange } from "../store/store-port.js";
import type { StoredMachineHold } from "../domain/holds/machine-holds.js";
import { cordonedByKintsugi } from "./sim-faults.js";
import type { SimWorld } from "./sim-world.js";

/** The first invariant that failed, and where. */
export interface Violation {
  readonly invariant: string;
  readonly message: string;
  readonly address: string | null;
  readonly entryIndex: number | null;
}

/** What the safety invariants read after a pass. */
export interface PassView {
  readonly now: number;
  readonly entries: readonly RepairEntry[];
  readonly jobOf: (index: number) => RunningJob;
  readonly commandsRunning: ReadonlySet<string>;
  readonly maxConcurrentRepairs: number;
}

/** What one intake did and the limits it ran under (see SafetyInvariants.afterIntake). */
export interface IntakeToCheck {
  /** The entries the intake enqueued. */
  readonly added: readonly RepairEntry[];
  /** How many entries the queue holds after it. */
  readonly total: number;
  /** maximum-repair-queue-entries. */
  readonly cap: number;
  /** maximum-unhealthy-machines-per-rack. */
  readonly rackLimit: number;
  /** What sabakan answered, or null. */
  readonly answer: readonly SabakanMachine[] | null;
  /** wait-seconds-to-repair-rebooting. */
  readonly rebootWaitSeconds: number;
  readonly now: number;
}

/**
 * The safety and accounting invariants, checked after every pass and as commands start; the first violation is
 * kept. Counts every check made, by invariant, for the report.
 */
export class SafetyInvariants {
  readonly checked = new Map<string, number>();
  violation: Violation | null = null;
  /** The machines whose health check said healthy in the pass that is deciding now, and in the one before. */
  private healthyNow = new Set<string>();
  private readonly seen = new Map<number, boolean>();

  constructor(private readonly world: SimWorld) {}

  private count(invariant: string): void {
    this.checked.set(invariant, (this.checked.get(invariant) ?? 0) + 1);
  }

  fail(v: Violation): void {
    if (!this.violation) this.violation = v;
  }

  /** A runner pass begins: the health answers it gathers are what its decisions were made on. */
  passStarts(): void {
    this.healthyNow = new Set();
  }

  healthAnswered(address: string, healthy: boolean): void {
    if (healthy) this.healthyNow.add(address);
  }

  /** A drain's cordon or a repair command starts for `address`. */
  disruptionStarts(what: string, address: string, holds: readonly StoredMachineHold[], now: number): void {
    this.count("no-disruption-of-a-healthy-machine");
    if (this.healthyNow.has(address)) {
      this.fail({
        invariant: "no-disruption-of-a-healthy-machine",
        message: `${what} for ${address}, whose health check said healthy in the pass that decided it`,
        address,
        entryIndex: null,
      });
    }
    this.count("no-command-for-a-held-machine");
    if (what !== "cordon" && holds.some((h) => h.address === address && isHoldActive(h, now))) {
      this.fail({ invariant: "no-command-for-a-held-machine", message: `${what} for ${address}, which is held`, address, entryIndex: null });
    }
  }

  /** After every pass. */
  afterPass(view: PassView): void {
    const unfinished = view.entries.filter((e) => !isFinished(e));
    this.count("one-control-plane-disrupted");
    const disruptedPlanes = this.world.machines.filter(
      (m) =>
        m.role === "control-plane" &&
        (cordonedByKintsugi(m) || view.commandsRunning.has(m.address) || unfinished.some((e) => e.address === m.address && view.jobOf(e.index) === "drain")),
    );
    if (disruptedPlanes.length > 1) {
      this.fail({
        invariant: "one-control-plane-disrupted",
        message: `control planes ${disruptedPlanes.map((m) => m.address).join(", ")} are disrupted at once`,
        address: disruptedPlanes[1]?.address ?? null,
        entryIndex: null,
      });
    }
    this.count("max-concurrent-repairs");
    const slots = unfinished.filter((e) => {
      const job = view.jobOf(e.index);
      if (job === "drain" || job === "repair-command") return true;
      const backingOff = e.drainBackoffExpire !== null && e.drainBackoffExpire > view.now;
      return e.status === "processing" && !backingOff && isCordoned(this.world, e.address);
    });
    if (slots.length > view.maxConcurrentRepairs) {
      this.fail({
        invariant: "max-concurrent-repairs",
        message: `${slots.length} entries (${slots.map((e) => e.index).join(", ")}) are repairing at once, max_concurrent_repairs is ${view.maxConcurrentRepairs}`,
        address: slots[0]?.address ?? null,
        entryIndex: slots[0]?.index ?? null,
      });
    }
    this.count("one-unfinished-entry-per-machine");
    const byAddress = new Map<string, number>();
    for (const e of unfinished) {
      const other = byAddress.get(e.address);
      if (other !== undefined)
        this.fail({
          invariant: "one-unfinished-entry-per-machine",
          message: `entries ${other} and ${e.index} are both unfinished for ${e.address}`,
          address: e.address,
          entryIndex: e.index,
        });
      byAddress.set(e.address, e.index);
    }
    this.count("no-entry-lost");
    const present = new Set(view.entries.map((e) => e.index));
    for (const [index, deleted] of this.seen) {
      if (present.has(index)) continue;
      if (!deleted)
        this.fail({ invariant: "no-entry-lost", message: `entry ${index} left the queue without a deletion request`, address: null, entryIndex: index });
      this.seen.delete(index);
    }
  }

  /** Every committed change of an entry: whether its deletion was requested (only then may it leave the queue). */
  committed(change: RepairChange): void {
    this.count("no-entry-duplicated");
    if (change.previous === null && this.seen.has(change.entry.index)) {
      this.fail({
        invariant: "no-entry-duplicated",
        message: `entry ${change.entry.index} was created twice`,
        address: change.entry.address,
        entryIndex: change.entry.index,
      });
    }
    this.seen.set(change.entry.index, change.entry.deleted || this.seen.get(change.entry.index) === true);
  }

  /**
   * After a poll or a health-check evaluation that enqueued `added`: the queue cap and the per-rack limit held, and
   * no machine CKE has been rebooting for less than wait-seconds-to-repair-rebooting was enqueued.
   */
  afterIntake({ added, total, cap, rackLimit, answer, rebootWaitSeconds, now }: IntakeToCheck): void {
    this.count("no-remediation-of-a-rebooting-node");
    for (const e of added) {
      const m = this.world.at(e.address);
      // The trigger's rule: a rebooting machine is left alone until it has been down for the wait (its Node NotReady).
      const down = m && !m.ready ? now - m.readySince : 0;
      if (m && e.source.startsWith("health-check") && m.rebootUntil > now && down < rebootWaitSeconds * 1000) {
        this.fail({
          invariant: "no-remediation-of-a-rebooting-node",
          message: `entry ${e.index} (${e.source}) enqueued for ${e.address}, which CKE is rebooting, NotReady for ${Math.round(down / 1000)} s (wait-seconds-to-repair-rebooting ${rebootWaitSeconds})`,
          address: e.address,
          entryIndex: e.index,
        });
      }
    }
    this.count("queue-cap");
    if (added.length > 0 && total > cap) {
      this.fail({
        invariant: "queue-cap",
        message: `${added.length} entries enqueued, leaving ${total} in the queue; maximum-repair-queue-entries is ${cap}`,
        address: added[0]?.address ?? null,
        entryIndex: added[0]?.index ?? null,
      });
    }
    if (answer === null || rackLimit === 0) return;
    this.count("per-rack-limit");
    const perRack = new Map<number, number>();
    for (const m of answer) perRack.set(m.rack, (perRack.get(m.rack) ?? 0) + 1);
    for (const e of added) {
      const rack = this.world.at(e.address)?.rack ?? -1;
      if ((perRack.get(rack) ?? 0) > rackLimit) {
        this.fail({
          invariant: "per-rack-limit",
          message: `entry ${e.index} enqueued from rack ${rack}, where sabakan listed ${perRack.get(rack)} unhealthy machines (limit ${rackLimit})`,
          address: e.address,
          entryIndex: e.index,
        });
      }
    }
  }

  /** Every transition is in the history, in order, and the last record is the entry as stored. */
  history(entry: RepairEntry, records: readonly RepairHistoryRecord[]): void {
    this.count("history-in-order");
    const fail = (message: string) =>
      this.fail({ invariant: "history-in-order", message: `entry ${entry.index}: ${message}`, address: entry.address, entryIndex: entry.index });
    for (let i = 1; i < records.length; i++) {
      const [a, b] = [records[i - 1] as RepairHistoryRecord, records[i] as RepairHistoryRecord];
      if (b.sequence <= a.sequence || b.time < a.time) return fail(`record ${b.sequence} comes after ${a.sequence} out of order`);
    }
    const last = records[records.length - 1];
    if (!last) return fail("no history");
    if (last.status !== entry.status || last.step !== entry.step || last.stepStatus !== entry.stepStatus || last.deleted !== entry.deleted) {
      fail(`the last record (${last.status}/${last.step}/${last.stepStatus}) is not the stored entry (${entry.status}/${entry.step}/${entry.stepStatus})`);
    }
  }
}

function isCordoned(world: SimWorld, address: string): boolean {
  const m = world.at(address);
  return m !== undefined && cordonedByKintsugi(m);
}
