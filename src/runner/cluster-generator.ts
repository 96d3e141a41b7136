import type { ClusterNode, MachineSource, NodeOperator } from "../adapters/ports.js";
import { canonicalAddresses } from "../domain/shared/address.js";
import { decideGeneration } from "../domain/cluster/generation-decision.js";
import { recordsRecovery, type GenerationRound, type GenerationTrigger } from "../domain/cluster/generation-record.js";
import { unusedMachinesByRole } from "../domain/cluster/cluster-usage.js";
import { hasRebootMark } from "../domain/shared/node-reboot.js";
import { parseTemplate } from "../domain/cluster/template.js";
import type { NodeTaints, RebootingNodes, Taint, Waiting } from "../domain/cluster/types.js";
import { DEFAULT_SELECTION_POLICY, type SelectionPolicy } from "../domain/cluster/worker-selection.js";
import type { ClusterGenerationPort, SettingsPort } from "../store/store-port.js";
import { PassLoop } from "./pass-loop.js";
import type { Log } from "../support/log.js";

export interface ClusterGeneratorDeps {
  readonly generations: ClusterGenerationPort;
  readonly settings: SettingsPort;
  /** null = sabakan is not configured. */
  readonly machines: MachineSource | null;
  /** null = no Kubernetes: no Node taints are known. */
  readonly nodes: NodeOperator | null;
  readonly now: () => number;
  readonly log: Log;
  /** The config's worker selection policy and spare-node taint key; absent: weighted. */
  readonly policy?: SelectionPolicy;
  /**
   * false: no timer on the real clock for a waiting control plane's grace; the caller starts the rounds itself (the
   * simulator, on its virtual clock, reading {@link ClusterGenerator.recheckDueAt}). Absent: the timer runs.
   */
  readonly recheckTimer?: boolean;
}

const WEIGHT: Readonly<Record<GenerationTrigger, number>> = { template: 4, settings: 3, event: 2, operator: 1, schedule: 0 };
const weightier = (a: GenerationTrigger | null, b: GenerationTrigger): GenerationTrigger => (a !== null && WEIGHT[a] >= WEIGHT[b] ? a : b);

/** Kubernetes Node taints by node name and by each internal IP in canonical form (CKE names nodes by address). */
export function taintsByNode(nodes: readonly ClusterNode[]): NodeTaints {
  const taints = new Map<string, readonly Taint[]>();
  for (const node of nodes) taints.set(node.name, node.taints);
  for (const node of nodes) for (const ip of canonicalAddresses(node.internalIPs)) if (!taints.has(ip)) taints.set(ip, node.taints);
  return taints;
}

/** The names and internal IPs of the Nodes CKE's reboot queue is rebooting (`cke.cybozu.com/reboot: "true"`). */
export function rebootingByNode(nodes: readonly ClusterNode[]): RebootingNodes {
  const rebooting = new Set<string>();
  for (const node of nodes.filter(hasRebootMark)) {
    rebooting.add(node.name);
    for (const ip of canonicalAddresses(node.internalIPs)) rebooting.add(ip);
  }
  return rebooting;
}

/**
 * Cluster generation, one round at a time: gathers the template, sabakan's machines (with the stored variables),
 * the Nodes' taints and the constraints, lets the domain decide, and records the result. Rounds never overlap: a
 * scheduled tick during a round is skipped; a request (template or settings changed) during a round runs one more
 * round after it, so the newest template is always used; an operator's round waits for the one in flight. When a
 * control plane waits out wait-seconds-to-replace-control-plane, a round (trigger `schedule`) is started as its grace
 * ends, so the replacement does not wait for the next scheduled round (scheduled rounds judge it as well).
 */
export class ClusterGenerator {
  private readonly loop: PassLoop<GenerationTrigger, GenerationRound>;
  private unused: ReadonlyMap<string, number> | null = null;
  private waitingReasons = "";
  /** When the round that just ended wants another: the earliest end of a control plane's grace. */
  private recheckAt: number | null = null;
  private readonly policy: SelectionPolicy;

  constructor(private readonly deps: ClusterGeneratorDeps) {
    this.policy = deps.policy ?? DEFAULT_SELECTION_POLICY;
    this.loop = new PassLoop({
      pass: (trigger) => {
        this.recheckAt = null;
        return this.round(trigger).catch((err: unknown) => {
          deps.log.error("cluster generation failed unexpectedly", { err: (err as Error).message });
          throw err;
        });
      },
      now: deps.now,
      merge: weightier,
      onError: () => undefined, // logged by the pass
      timer: { trigger: "schedule", intervalMs: Infinity, nextAt: () => this.recheckAt },
    });
    if (deps.recheckTimer !== false) this.loop.startTimer();
  }

  /** When the last round wants another (the earliest end of a waiting control plane's grace); null: no need. */
  recheckDueAt(): number | null {
    return this.recheckAt;
  }

  /** An operator's round (`runClusterGeneration`): runs after any round in flight. */
  runNow(): Promise<GenerationRound> {
    return this.loop.run("operator");
  }

  /** A scheduled tick: skipped while a round runs. */
  async tick(): Promise<GenerationRound | null> {
    return this.loop.tryRun("schedule");
  }

  /**
   * The template, a setting or a machine's state changed: regenerate soon (after the round in flight, if any;
   * requests during a round make one more round, named after the weightiest of them). Never rejects.
   */
  request(trigger: Extract<GenerationTrigger, "template" | "settings" | "event">): void {
    this.loop.request(trigger);
  }

  /** Shutdown: starts no more rounds (nor the recheck of waiting control planes) and waits for the one in flight. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Healthy machines no node uses, by role, as of the last round that got sabakan's list; null before one. */
  unusedMachines(): ReadonlyMap<string, number> | null {
    return this.unused;
  }

  /** Waits until no round runs and none is pending (shutdown, tests). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  private async round(trigger: GenerationTrigger): Promise<GenerationRound> {
    const { deps } = this;
    const stored = deps.settings.clusterTemplate();
    if (!deps.settings.clusterGenerationEnabled()) return { kind: "skipped", reason: "cluster generation is disabled (kintsugi sabakan enable turns it on)" };
    if (stored === null) return { kind: "skipped", reason: "no cluster template is set (kintsugi sabakan set-template FILE sets one)" };
    if (!deps.machines) return { kind: "skipped", reason: "sabakan is not configured (set sabakan.url in the config file)" };
    const parsed = parseTemplate(stored.text);
    if (!parsed.ok) return this.fail(trigger, `the stored cluster template is invalid: ${parsed.errors.join("; ")}`);
    let machines;
    try {
      machines = await deps.machines.searchMachines(deps.settings.clusterVariables());
    } catch (err) {
      return this.fail(trigger, (err as Error).message);
    }
    let nodeTaints: NodeTaints = new Map();
    let rebootingNodes: RebootingNodes = new Set();
    if (deps.nodes) {
      try {
        const nodes = await deps.nodes.listNodes();
        nodeTaints = taintsByNode(nodes);
        rebootingNodes = rebootingByNode(nodes);
      } catch (err) {
        // Without the taints a tainted machine could be made a control plane: change nothing.
        return this.fail(trigger, `cannot list Kubernetes nodes: ${(err as Error).message}`);
      }
    }
    // No await from here to the record: the decision and its record see the same configuration in force (rounds never
    // overlap, and only this generator records configurations).
    const current = deps.generations.current();
    const decision = decideGeneration(
      {
        template: parsed.template,
        current: current?.cluster ?? null,
        machines,
        nodeTaints,
        rebootingNodes,
        constraints: deps.settings.constraints(),
        policy: this.policy,
      },
      deps.now(),
    );
    this.unused = unusedMachinesByRole(machines, decision.kind === "generated" ? decision.cluster : (current?.cluster ?? null));
    if (decision.kind === "failed") return this.fail(trigger, decision.error);
    this.noteWaiting(decision.waiting);
    if (decision.kind === "unchanged") {
      if (!recordsRecovery(deps.generations.latest())) return { kind: "unchanged", current, recovery: null };
      const recovery = await deps.generations.recordRecovered(deps.now(), trigger, this.policy.workerSelection);
      deps.log.info("cluster generation works again; nothing to change", { generation: recovery.generation, trigger });
      return { kind: "unchanged", current, recovery };
    }
    const record = await deps.generations.recordGenerated(deps.now(), trigger, decision.cluster, decision.changes, this.policy.workerSelection);
    deps.log.info("generated cluster configuration", {
      generation: record.generation,
      trigger,
      policy: record.policy,
      nodes: decision.cluster.nodes.length,
      changes: decision.changes,
    });
    return { kind: "recorded", record, repeated: false };
  }

  /** Logs which control planes wait (when that changes) and asks for a round at the earliest grace's end. */
  private noteWaiting(waiting: Waiting): void {
    // Compared without the seconds, which grow every round: one line when the waiting control planes change.
    const reasons = waiting.reasons.map((r) => r.replace(/ for \S+ s,/, ",")).join("\n");
    if (reasons !== this.waitingReasons && reasons !== "") this.deps.log.info("control planes kept while they wait", { reasons: waiting.reasons });
    this.waitingReasons = reasons;
    this.recheckAt = waiting.recheckAt;
  }

  private async fail(trigger: GenerationTrigger, error: string): Promise<GenerationRound> {
    const { record, repeated } = await this.deps.generations.recordFailed(this.deps.now(), trigger, error, this.policy.workerSelection);
    if (!repeated) this.deps.log.warn("cluster generation failed; the configuration in force stays", { generation: record.generation, trigger, error });
    return { kind: "recorded", record, repeated };
  }
}
