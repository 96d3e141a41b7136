import { createRepairEntry, isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import type { KintsugiStore } from "../store/store-port.js";
import type { FaultTargets } from "./sim-faults.js";
import type { SimRandom } from "./sim-random.js";
import type { SimMachine, SimWorld } from "./sim-world.js";
import { SIM_OPERATOR } from "./sim-operators.js";
import type { FailoverMode } from "./sim-kintsugi.js";

/** The faults aimed where they hurt: each picks its target among the entries in the state it breaks, or does nothing. */
export const AIMED_KINDS: readonly string[] = [
  "pdb-on-draining",
  "pod-stuck-on-draining",
  "node-leaves-mid-drain",
  "sabakan-outage-in-dwell",
  "relapse-in-dwell",
  "failover-before-command",
  "second-control-plane-dies",
  "hold-mid-repair",
  "repaired-machine-dies-again",
  "cap-at-queue-size",
  "leader-frozen-mid-command",
  "leader-frozen-while-a-command-hangs",
  "stop-before-start-recorded",
  "uncordon-refused",
  "other-plane-down-in-dwell",
  "bmc-no-op-then-fault-clears",
  "entry-deleted-beside-its-inherited-command",
];

const MIN = 60_000;
type Note = (at: number, kind: string, address: string | null, detail: string) => true;

/**
 * Faults aimed at the entries they break, as evenly drawn faults rarely are: a refused eviction, a pod that will not
 * go, or the Node leaving, on a machine being drained (or about to be); a sabakan outage or a relapse while a proof
 * dwell runs; a leader failover between a step's start (committed) and its command; a second control plane dying
 * while one is repaired (its Node Ready); an operator holding a machine mid-repair; a repaired machine failing again;
 * an operator capping the queue at its size; the leader frozen while its commands run (they run on: the next leader
 * must wait them out), or while one hangs (only its backstop ends it); the leader stopping between the pass that
 * decided a command and the write that records its start; the Kubernetes API refusing an uncordon; another
 * control plane going NotReady while a control plane's dwell runs; a BMC that acknowledges a power action it never
 * performs, on a machine whose fault then clears by itself (its boot ID unchanged).
 */
export class AimedFaults {
  /** A failover an armed fault asked for, and how: the simulator performs it after the pass. */
  failoverPending: FailoverMode | null = null;
  /** An entry whose command a frozen leader left running: an operator deletes it and adds its machine again once another replica leads. */
  private deleteAfterFailover: { readonly entryIndex: number; readonly run: string } | null = null;

  constructor(
    private readonly world: SimWorld,
    private readonly store: KintsugiStore,
    private readonly random: SimRandom,
    private readonly targets: FaultTargets,
    private readonly note: Note,
    private readonly kill: (m: SimMachine, now: number, kind: string, nodeUp: boolean) => boolean,
  ) {}

  /** What an armed fault does once the failover it asked for happened (called before each step's faults). */
  async afterFailover(now: number): Promise<void> {
    const pending = this.deleteAfterFailover;
    if (pending === null || this.targets.commands.owner === pending.run) return;
    this.deleteAfterFailover = null;
    const entry = this.store.entries.get(pending.entryIndex);
    if (!entry || entry.deleted || isFinished(entry)) return;
    await this.store.entries.requestDelete((e) => e.index === entry.index, "deleted by the simulated operator", now, SIM_OPERATOR);
    const again = createRepairEntry(
      { address: entry.address, machineType: entry.machineType, operation: entry.operation, serial: entry.serial, source: "operator" },
      now,
    );
    const added = await this.store.entries.add(again, "added again by the simulated operator", now, SIM_OPERATOR);
    this.note(
      now,
      "entry-deleted-beside-its-inherited-command",
      entry.address,
      `entry ${entry.index} deleted, its command running on; entry ${added.entry.index} added`,
    );
  }

  async apply(kind: string, now: number): Promise<boolean> {
    const r = this.random;
    const unfinished = this.store.entries.list().filter((e) => !isFinished(e) && !e.deleted);
    const pick = (entries: readonly RepairEntry[]): SimMachine | null => {
      const m = entries.length === 0 ? undefined : this.world.at(r.pick(entries).address);
      return m ?? null;
    };
    // Being drained, or about to be: the second step (the one that drains) comes next or has begun.
    const draining = unfinished.filter((e) => e.stepStatus === "draining" || (e.status === "processing" && (e.step === 1 || e.stepStatus === "watching")));
    const dwelling = unfinished.filter((e) => e.evidence?.dwellStartedAt != null && e.evidence.provenAt === null);
    switch (kind) {
      case "pdb-on-draining": {
        const m = pick(draining);
        if (!m) return false;
        m.pdbUntil = now + r.int(5, 60) * MIN;
        return this.note(now, kind, m.address, `a PodDisruptionBudget refuses evictions until +${(m.pdbUntil - now) / MIN} min`);
      }
      case "pod-stuck-on-draining": {
        const m = pick(draining);
        if (!m) return false;
        m.podStuckUntil = now + r.int(5, 40) * MIN;
        return this.note(now, kind, m.address, `an evicted pod stays (a finalizer) until +${(m.podStuckUntil - now) / MIN} min`);
      }
      case "node-leaves-mid-drain": {
        const m = pick(draining.filter((e) => e.stepStatus === "draining"));
        if (!m || m.node === null || m.nodeGone) return false;
        m.nodeGone = true;
        m.nodeBackAt = now + r.int(10, 60) * MIN;
        // The Node object is gone, and with it its cordon and annotations.
        m.unschedulable = false;
        m.annotations = {};
        return this.note(now, kind, m.address, `its Node is deleted mid-drain; it joins again at +${(m.nodeBackAt - now) / MIN} min`);
      }
      case "sabakan-outage-in-dwell":
        if (dwelling.length === 0 || this.targets.sabakan.down) return false;
        this.targets.sabakan.down = true;
        return this.note(now, kind, null, `sabakan unreachable while entries ${dwelling.map((e) => e.index).join(", ")} dwell`);
      case "relapse-in-dwell": {
        const m = pick(dwelling);
        if (!m) return false;
        m.notReadyUntil = now + r.int(1, 5) * MIN;
        return this.note(now, kind, m.address, `its Node is NotReady until +${(m.notReadyUntil - now) / MIN} min, mid-dwell`);
      }
      case "failover-before-command":
        if (unfinished.length === 0 || this.targets.commands.failoverInstead !== null) return false;
        this.targets.commands.failoverInstead = (start) => {
          this.failoverPending = { kind: "stopped" };
          this.note(start.at, "leader-failover", start.address, `between the start of step ${start.step + 1} of entry ${start.entryIndex} and its command`);
        };
        return this.note(now, kind, null, "the leader fails over as it is about to start the next repair command");
      case "second-control-plane-dies": {
        const planes = this.world.machines.filter((m) => m.role === "control-plane");
        const repairing = new Set(unfinished.map((e) => e.address));
        if (!planes.some((m) => repairing.has(m.address) || m.broken !== null)) return false;
        // Its Node stays Ready (a failing disk) when the first one's does, and half the time else: only the one-at-a-time
        // rule keeps two repairs of Ready control planes apart.
        const m = planes.find((x) => x.broken === null && !repairing.has(x.address));
        const firstReady = planes.some((x) => x !== m && (repairing.has(x.address) || x.broken !== null) && x.ready);
        return m !== undefined && this.kill(m, now, kind, firstReady || r.chance(0.5));
      }
      case "repaired-machine-dies-again": {
        // A repeat offender: flaky hardware fails again soon after its repair (escalation's case).
        const repaired = [
          ...this.store.entries.list().filter((e) => e.status === "succeeded"),
          ...this.store.finished.list().filter((f) => f.status === "succeeded"),
        ];
        const found = repaired.length === 0 ? undefined : this.world.at(r.pick(repaired).address);
        return found !== undefined && this.kill(found, now, kind, false);
      }
      case "cap-at-queue-size": {
        // An operator stops intake in a storm: maximum-repair-queue-entries down to the entries the queue holds.
        const cap = Math.max(1, this.store.entries.list().length);
        await this.store.settings.setConstraints({ maximumRepairQueueEntries: cap });
        return this.note(now, kind, null, `maximum-repair-queue-entries ${cap}, the entries in the queue`);
      }
      case "hold-mid-repair": {
        // An operator holds a machine watching after its command ("let me look before you go on"): it may recover held.
        const m = pick(unfinished.filter((e) => e.status === "processing" && e.stepStatus === "watching"));
        if (!m) return false;
        const until = now + r.int(10, 60) * MIN;
        await this.store.holds.hold(
          () => ({ ok: true, hold: { address: m.address, reason: "looking at it mid-repair", setBy: SIM_OPERATOR, setAt: now, until } }),
          SIM_OPERATOR,
        );
        return this.note(now, kind, m.address, `held until +${(until - now) / MIN} min`);
      }
      case "leader-frozen-mid-command":
      case "leader-frozen-while-a-command-hangs": {
        // SIGSTOP of the leader just after a command started (when one hangs: its BMC never answers): the command runs
        // on, which the next leader must wait out. A hung one outlives its timeout: only its backstop ends it, unless
        // the frozen replica resumes first (then, its lease lost, it kills it).
        const commands = this.targets.commands;
        const hangs = kind === "leader-frozen-while-a-command-hangs";
        if (unfinished.length === 0 || commands.freezeAfterStart !== null) return false;
        commands.freezeAfterStart = {
          hangs,
          then: (start) => {
            const resumeAt = start.at + (hangs ? r.int(6, 20) : r.int(1, 15)) * MIN;
            this.failoverPending = { kind: "frozen", resumeAt };
            const what = `${start.kind} command of entry ${start.entryIndex}${hangs ? ", which hangs," : ""}`;
            this.note(start.at, "leader-failover", start.address, `the leader froze as the ${what} started, until +${(resumeAt - start.at) / MIN} min`);
          },
        };
        return this.note(now, kind, null, `the leader freezes as the next ${hangs ? "hanging " : ""}command starts`);
      }
      case "entry-deleted-beside-its-inherited-command": {
        // The leader freezes as a command starts (the command runs on); once another replica leads, an operator deletes
        // the entry, its command still running, and adds the machine again (deletedButFenced in entry-triage.ts).
        const commands = this.targets.commands;
        if (unfinished.length === 0 || commands.freezeAfterStart !== null || this.deleteAfterFailover !== null) return false;
        commands.freezeAfterStart = {
          hangs: false,
          then: (start) => {
            const resumeAt = start.at + r.int(5, 15) * MIN;
            this.failoverPending = { kind: "frozen", resumeAt };
            if (start.entryIndex !== null) this.deleteAfterFailover = { entryIndex: start.entryIndex, run: commands.owner };
            this.note(start.at, "leader-failover", start.address, `the leader froze as the ${start.kind} command of entry ${start.entryIndex} started`);
          },
        };
        return this.note(now, kind, null, "the leader freezes as the next command starts; an operator then deletes its entry and adds the machine again");
      }
      case "other-plane-down-in-dwell": {
        // A control plane proving its repair (its dwell holding its watch open) must give the turn up to another
        // that goes NotReady, and keep its watch all the same.
        const planes = this.world.machines.filter((m) => m.role === "control-plane");
        const proving = dwelling.filter((e) => e.stepStatus === "watching" && planes.some((m) => m.address === e.address));
        const entries = new Set(unfinished.map((e) => e.address));
        const other = planes.filter((m) => !entries.has(m.address) && m.broken === null && m.ready && m.notReadyUntil <= now);
        if (proving.length === 0 || other.length === 0) return false;
        const m = r.pick(other);
        m.notReadyUntil = now + r.int(2, 10) * MIN;
        return this.note(
          now,
          kind,
          m.address,
          `its Node is NotReady until +${(m.notReadyUntil - now) / MIN} min while entries ${proving.map((e) => e.index).join(", ")} dwell`,
        );
      }
      case "bmc-no-op-then-fault-clears": {
        // The next repair command's BMC acknowledges a power action it never performs, and the machine's fault (a
        // flapping link) clears by itself minutes later, without a reboot: its boot ID is the one recorded before.
        const commands = this.targets.commands;
        if (unfinished.length === 0 || commands.noOpNext !== null) return false;
        commands.noOpNext = (m, at) => {
          if (m.broken === null) return;
          m.broken = { ...m.broken, nodeUp: true };
          m.recoverAt = at + r.int(1, 8) * MIN;
          this.note(at, kind, m.address, `its repair command did nothing; its fault clears by itself at +${(m.recoverAt - at) / MIN} min, without a reboot`);
        };
        return this.note(now, kind, null, "the next repair command's BMC will acknowledge a power action it never performs");
      }
      case "uncordon-refused":
        // The API refuses the next uncordon (of an entry that finished, backs off or gives the turn up): the next pass
        // must find the stray cordon and lift it.
        if (this.targets.nodes.refuseUncordons > 0 || !unfinished.some((e) => e.status === "processing")) return false;
        this.targets.nodes.refuseUncordons = 1;
        return this.note(now, kind, null, "the Kubernetes API refuses the next uncordon");
      case "stop-before-start-recorded":
        if (unfinished.length === 0) return false;
        return (
          this.targets.stopBeforeStart((index, at) => {
            this.failoverPending = { kind: "stopped" };
            this.note(at, "leader-failover", null, `between the pass that decided a command of entry ${index} and the write recording its start`);
          }) && this.note(now, kind, null, "the leader stops before it records the start of the next command it decided")
        );
      default:
        throw new Error(`unknown aimed fault ${kind}`);
    }
  }
}
