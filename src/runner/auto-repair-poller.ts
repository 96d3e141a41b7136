import { CORDONED_BY_ANNOTATION, type ClusterNode, type MachineSource, type NodeOperator } from "../adapters/ports.js";
import { canonicalAddresses } from "../domain/shared/address.js";
import { AUTO_REPAIR_SOURCE, decideIntake } from "../domain/intake/auto-repair-intake.js";
import { activeHolds, annotationHolds, type MachineHold } from "../domain/holds/machine-holds.js";
import type { AutoRepairOutcome, PollTrigger } from "../domain/intake/auto-repair-outcome.js";
import { isRebootedByCke } from "../domain/shared/node-reboot.js";
import { recordPoll } from "../domain/replay/poll-record.js";
import { keptSkips } from "../domain/intake/skipped-bound.js";
import { createRepairEntry } from "../domain/queue/repair-entry.js";
import type { NodeStanding } from "../domain/sabakan/sabakan-machine.js";
import type { RepairConfig } from "../domain/queue/repair-config.js";
import type { KintsugiStore } from "../store/store-port.js";
import { holdEscalated } from "./escalation-holds.js";
import { OutageLog } from "./outage-log.js";
import { PassLoop } from "./pass-loop.js";
import type { Log } from "../support/log.js";

export interface PollerDeps {
  /** Where the entries and outcomes are kept; each poll's decision and its outcome commit in one `enqueue`. */
  readonly store: KintsugiStore;
  /** null = sabakan is not configured. */
  readonly machines: MachineSource | null;
  readonly nodes: NodeOperator | null;
  readonly now: () => number;
  readonly log: Log;
  /** Called with every recorded outcome and how long its poll took (metrics; subscriptions hear of it from the store). */
  readonly recorded?: (outcome: AutoRepairOutcome, seconds: number) => void;
  /** The repair procedures and `repair.escalation` (absent, or without escalation: CKE's intake). */
  readonly repair?: RepairConfig;
  /** Called for a scheduled tick that did not poll: auto-repair is disabled, or a poll is still running. */
  readonly skipped?: (reason: "disabled" | "busy") => void;
}

/**
 * How Kubernetes stands for each address: a Node carrying CKE's reboot annotation whose cordon is not kintsugi's
 * is rebooting; any other Node is a node; an address without a Node is not a node. InternalIPs are keyed in
 * canonical form, and one that is not an IP address is left out.
 */
export function nodeStandings(nodes: readonly ClusterNode[]): Map<string, NodeStanding> {
  const standings = new Map<string, NodeStanding>();
  for (const node of nodes) {
    const standing: NodeStanding = isRebootedByCke(node, CORDONED_BY_ANNOTATION) ? "rebooting" : "node";
    standings.set(node.name, standing);
    for (const ip of canonicalAddresses(node.internalIPs)) standings.set(ip, standing);
  }
  return standings;
}

/**
 * Sabakan-triggered repair, one poll at a time: polls never overlap (an operator's poll waits for the running one,
 * a scheduled tick is skipped). A failed poll enqueues nothing and records why; the next one starts afresh.
 */
export class AutoRepairPoller {
  private readonly loop: PassLoop<PollTrigger, AutoRepairOutcome>;
  /** sabakan or Kubernetes down fails every poll: said once, reminded, and said again when a poll works. */
  private readonly outage: OutageLog;

  constructor(private readonly deps: PollerDeps) {
    this.outage = new OutageLog("the auto-repair poll", deps.log, deps.now);
    this.loop = new PassLoop({
      pass: (trigger) => this.timedPoll(trigger),
      now: deps.now,
      merge: (_earlier, later) => later,
      onError: (err) => deps.log.error("auto-repair poll failed unexpectedly", { err: (err as Error).message }),
    });
  }

  /** An operator's poll (`runAutoRepair`): runs after any poll in flight, and always records an outcome. */
  runNow(): Promise<AutoRepairOutcome> {
    return this.loop.run("operator");
  }

  /** A scheduled tick: skipped while a poll runs or auto-repair is disabled (then sabakan is not queried). */
  async tick(): Promise<AutoRepairOutcome | null> {
    if (!this.deps.store.settings.autoRepairEnabled()) {
      this.deps.skipped?.("disabled");
      return null;
    }
    const poll = this.loop.tryRun("schedule");
    if (!poll) this.deps.skipped?.("busy");
    return poll;
  }

  /**
   * A state change made through kintsugi (setMachineState to UNHEALTHY or UNREACHABLE): polls once after any poll
   * in flight (which may have read sabakan before the change); skipped while auto-repair is disabled.
   */
  async runAfterEvent(): Promise<AutoRepairOutcome | null> {
    await this.loop.idle();
    if (!this.deps.store.settings.autoRepairEnabled()) return null;
    return this.loop.run("event");
  }

  /** Waits for the poll in flight, if any. */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  /** Starts no more polls and waits for the one in flight (shutdown). */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async timedPoll(trigger: PollTrigger): Promise<AutoRepairOutcome> {
    const started = performance.now();
    const outcome = await this.poll(trigger);
    this.deps.recorded?.(outcome, (performance.now() - started) / 1000);
    return outcome;
  }

  private async poll(trigger: PollTrigger): Promise<AutoRepairOutcome> {
    const { deps } = this;
    const { settings } = deps.store;
    if (!deps.machines) return this.fail(trigger, "sabakan is not configured (set sabakan.url in the config file)");
    if (!settings.autoRepairEnabled()) return this.fail(trigger, "auto-repair is disabled; sabakan was not queried");
    let machines;
    try {
      machines = await deps.machines.searchMachines(settings.autoRepairVariables());
    } catch (err) {
      return this.fail(trigger, (err as Error).message);
    }
    let nodes = new Map<string, NodeStanding>();
    let annotated: MachineHold[] = [];
    if (deps.nodes) {
      try {
        const listed = await deps.nodes.listNodes();
        nodes = nodeStandings(listed);
        annotated = annotationHolds(listed);
      } catch (err) {
        // Without the nodes, a rebooting machine cannot be told from a broken one: enqueue nothing.
        return this.fail(trigger, `cannot list Kubernetes nodes: ${(err as Error).message}`, machines.length);
      }
    }
    const now = deps.now();
    // Decided inside the write, on the queue as stored: the decision and its commit see the same queue.
    const { outcome, decision } = await deps.store.enqueue(
      (entries) => {
        // The stored holds as of this write: a machine held while sabakan answered is not enqueued.
        const holds = activeHolds(deps.store.holds.list(), annotated, now);
        const escalation = deps.repair?.escalation && {
          config: deps.repair.escalation,
          finished: deps.store.finished.list(),
          releases: deps.store.settings.escalationReleases(),
          now,
          repair: deps.repair,
        };
        const input = { machines, entries, nodes, constraints: settings.constraints(), holds, ...(escalation && { escalation }) };
        const decided = decideIntake(input);
        return {
          intake: decided,
          add: decided.enqueue.map((e) => ({ entry: createRepairEntry(e, now), reason: e.reason })),
          outcome: (enqueued) => ({
            time: now,
            trigger,
            machinesSeen: decided.machinesSeen,
            enqueued,
            ...keptSkips(decided.skipped),
            shortCircuit: decided.shortCircuit,
            error: null,
          }),
          pollRecord: recordPoll(input, decided, now),
        };
      },
      now,
      AUTO_REPAIR_SOURCE,
    );
    this.outage.worked();
    const { shortCircuit, escalationHolds } = decision.intake;
    if (shortCircuit) deps.log.warn("auto-repair enqueued nothing: too many repair requests", { ...shortCircuit });
    await holdEscalated(deps.store, escalationHolds, now, deps.log);
    // The decision always asks for an outcome, so the store records one.
    if (outcome === null) throw new Error("the store recorded no outcome for a poll that asked for one");
    return outcome;
  }

  private fail(trigger: PollTrigger, error: string, machinesSeen = 0): Promise<AutoRepairOutcome> {
    this.outage.failed(error);
    return this.deps.store.outcomes.record({ time: this.deps.now(), trigger, machinesSeen, enqueued: [], ...keptSkips([]), shortCircuit: null, error });
  }
}
