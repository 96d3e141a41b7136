import { isHoldActive } from "../domain/holds/machine-holds.js";
import { isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import type { WaitingFor } from "../domain/queue/repair-wait.js";
import type { RunningJob } from "../domain/queue/repair-plan.js";
import type { StoredMachineHold } from "../domain/holds/machine-holds.js";
import type { Violation } from "./sim-checks.js";
import type { SimWorld } from "./sim-world.js";

/** What the liveness invariants read after a pass. */
export interface LivenessView {
  readonly now: number;
  readonly entries: readonly RepairEntry[];
  readonly waitingFor: (index: number) => WaitingFor | null;
  readonly queueEnabled: boolean;
  readonly holds: readonly StoredMachineHold[];
  readonly maxConcurrentRepairs: number;
  /** The job this process runs for an entry. */
  readonly jobOf: (index: number) => RunningJob;
  /** CKE's `control-plane-count` in force. */
  readonly controlPlaneCount: number;
}

/**
 * Liveness: no cycle of entries waiting on each other, and no unfinished entry left unchanged for longer than the
 * longest chain of configured timeouts (times the entries ahead of it per slot) unless something named clears its
 * wait: the queue is disabled, the machine held, a drain back-off running, or the control plane it waits for is
 * being rebooted by CKE, or is down with no repair of its own, or while this one or a third one is down too (a
 * person steps in).
 */
export class LivenessInvariants {
  readonly checked = new Map<string, number>();
  /** Per unfinished entry: its last state, since when, and how many entries were ahead of it then (null: not yet counted). */
  private readonly lastChange = new Map<number, { json: string; at: number; ahead: number | null }>();

  constructor(
    private readonly world: SimWorld,
    private readonly chainMs: number,
  ) {}

  private count(invariant: string): void {
    this.checked.set(invariant, (this.checked.get(invariant) ?? 0) + 1);
  }

  /** Resets the clocks of every entry (faults stopped, or the runner restarted: waits start again from here). */
  restartClocks(now: number): void {
    for (const v of this.lastChange.values()) {
      v.at = now;
      v.ahead = null;
    }
  }

  check(view: LivenessView, final: boolean): Violation | null {
    const unfinished = view.entries.filter((e) => !isFinished(e) && !e.deleted);
    this.count("no-wait-cycle");
    const cycle = this.cycle(unfinished, view);
    if (cycle) return cycle;
    let ahead = 0;
    for (const e of unfinished) {
      const json = JSON.stringify(e);
      let last = this.lastChange.get(e.index);
      if (!last || last.json !== json) {
        last = { json, at: view.now, ahead: null };
        this.lastChange.set(e.index, last);
      }
      // The bound counts the entries ahead when this wait began, not those still ahead now: the wait includes the
      // turns of the ones that finished meanwhile (seed 42 at 1,000 machines: entry 402 queued behind 29 entries,
      // waited 244 min while they drained two at a time, and was judged with the 7 left: bound 240 min).
      last.ahead ??= ahead;
      // An excused pass restarts the clock: the bound is how long the entry may wait once nothing named keeps it
      // (seed 6 at 100 machines: control plane rack0-node0 waited 3 h for rack3-node0, down with no entry of its own
      // until 04:26, and was judged at 04:27 by the whole wait, when rack3-node0's repair had just started).
      if (!final && this.excuse(e, view) !== null) {
        last.at = view.now;
        last.ahead = ahead;
      }
      const since = last.at;
      this.count(final ? "finishes-after-faults-stop" : "no-entry-stuck");
      // A pacing wait is served as slowly as one repair at a time (a failure lowers a domain's allowance to 1), not
      // max_concurrent_repairs at a time (seed 21 with fenced deletions at 6 h: entry 4, its machine type allowed one
      // repair after entry 3's failure, waited 103 min against a bound of 102 counted at 3 at a time).
      const perTurn = view.waitingFor(e.index)?.kind === "PACING" ? 1 : Math.max(1, view.maxConcurrentRepairs);
      const bound = this.chainMs * (2 + Math.floor(last.ahead / perTurn));
      ahead++;
      if ((final || view.now - since > bound) && this.excuse(e, view) === null) {
        const wait = view.waitingFor(e.index);
        const message = final
          ? `entry ${e.index} is unfinished after faults stopped (${e.status}/${e.step}/${e.stepStatus}); waiting for: ${wait?.message ?? "nothing named"}`
          : `entry ${e.index} has not moved for ${Math.round((view.now - since) / 60_000)} min (bound ${Math.round(bound / 60_000)} min); waiting for: ${wait?.message ?? "nothing named"}`;
        return { invariant: final ? "finishes-after-faults-stop" : "no-entry-stuck", message, address: e.address, entryIndex: e.index };
      }
    }
    for (const index of this.lastChange.keys()) if (!unfinished.some((e) => e.index === index)) this.lastChange.delete(index);
    return null;
  }

  /** What legitimately keeps the entry where it is, or null. */
  private excuse(e: RepairEntry, view: LivenessView): string | null {
    if (!view.queueEnabled) return "queue disabled";
    const isHeld = (address: string) => view.holds.some((h) => h.address === address && isHoldActive(h, view.now));
    if (isHeld(e.address)) return "held";
    if (e.drainBackoffExpire !== null && e.drainBackoffExpire > view.now) return "back-off";
    // A held entry mid-repair keeps its slot until its hold ends, and the wait names it: a person's to end (seed 24 of
    // the classic model: entry 30 waited 193 min for the one slot, kept by entry 29 held mid-repair for 5 h).
    if (view.waitingFor(e.index)?.kind === "CONCURRENCY" && view.entries.some((x) => x.status === "processing" && !x.deleted && isHeld(x.address))) {
      return "a held entry keeps a slot";
    }
    // A wait behind an entry whose drain a disruption budget refuses, backing off, is the budget's: a person lifts it
    // or resets the back-off (seed 107 of the whole model at 6 h: control plane entry 6 waited 101 min for the turn
    // entry 3 kept while a budget refused its drain five times). The entry behind is itself held to the bound.
    const behind = view.waitingFor(e.index)?.entryIndex;
    if (behind !== undefined && view.entries.some((x) => x.index === behind && x.status === "processing" && !x.deleted && x.drainBackoffCount > 0)) {
      return "the entry it waits behind backs off a refused drain";
    }
    // No repair operation runs while etcd is not good for repair (CKE): bringing the control planes back is a person's.
    const planes = this.world.machines.filter((m) => m.role === "control-plane");
    const up = planes.filter((m) => m.ready).length;
    if (planes.length > 0 && (up * 2 <= planes.length || up < view.controlPlaneCount - 1)) return "etcd is not good for repair and needs a person";
    const own = this.world.at(e.address);
    if (own?.role !== "control-plane") return null;
    const others = this.world.machines.filter((m) => m.role === "control-plane" && m !== own);
    const unfinished = new Set(view.entries.filter((x) => !isFinished(x) && !x.deleted).map((x) => x.address));
    if (others.some((m) => m.rebootUntil > view.now || (!m.ready && (!unfinished.has(m.address) || !own.ready))))
      return "another control plane is down and needs a person";
    // Two other control planes down (neither booting after a repair command): each one's entry is held because the
    // other is not Ready (controlPlaneHold lets only the one dead control plane be repaired), the two-down wait that
    // cycle() accepts as a person's to end. This entry, Ready itself, waits behind them: it is no longer stuck than
    // they are (seed 42 at 1,000 machines: three control planes down, a fourth, Ready but failing, waited 145 min).
    const down = others.filter((m) => !m.ready && m.bootingUntil <= view.now);
    if (down.length >= 2) return "two other control planes are down together and need a person";
    return null;
  }

  /** Entries that wait on each other: the entry a wait names, or the unfinished entry of the control plane it names. */
  private cycle(unfinished: readonly RepairEntry[], view: LivenessView): Violation | null {
    const byAddress = new Map(unfinished.map((e) => [e.address, e.index]));
    const byNode = new Map<string, number>();
    for (const m of this.world.machines) if (m.node !== null && byAddress.has(m.address)) byNode.set(m.node, byAddress.get(m.address) as number);
    const edges = new Map<number, number>();
    for (const e of unfinished) {
      // An entry whose job runs moves when the job ends (a command ends by its timeout at the latest): no edge.
      if (view.jobOf(e.index) !== "none") continue;
      const w = view.waitingFor(e.index);
      if (!w) continue;
      const named = /control plane (\S+) is not Ready/.exec(w.message)?.[1];
      const target = w.entryIndex ?? (named === undefined ? undefined : (byNode.get(named) ?? byAddress.get(named)));
      if (target !== undefined && target !== e.index) edges.set(e.index, target);
    }
    for (const start of edges.keys()) {
      const path = [start];
      let at = edges.get(start);
      while (at !== undefined && !path.includes(at)) {
        path.push(at);
        at = edges.get(at);
      }
      // Two control planes down at once, each held because the other is not Ready: CKE's rule holds both, and
      // kintsugi names the person's way out (repair one by hand, or delete an entry). A cycle through a control
      // plane that is Ready (mid-repair) is a deadlock: two control-plane entries waiting for each other's turn for good.
      const bothDown = path.every((i) => {
        const m = this.world.at(unfinished.find((x) => x.index === i)?.address ?? "");
        return m?.role === "control-plane" && !m.ready;
      });
      if (at === start && !bothDown) {
        const e = unfinished.find((x) => x.index === start) as RepairEntry;
        const why = path.map((i) => `entry ${i}: ${view.waitingFor(i)?.message ?? "?"}`).join("; ");
        return {
          invariant: "no-wait-cycle",
          message: `entries ${path.join(" -> ")} -> ${start} wait on each other (${why})`,
          address: e.address,
          entryIndex: start,
        };
      }
    }
    return null;
  }
}
