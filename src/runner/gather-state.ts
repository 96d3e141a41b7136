import { CORDONED_BY_ANNOTATION, type ClusterNode, type CommandRunner, type MachineSource, type NodeOperator } from "../adapters/ports.js";
import { cordonOwner } from "../domain/queue/stray-cordons.js";
import { canonicalAddresses } from "../domain/shared/address.js";
import { podsBlockingDrain } from "../domain/queue/eviction-plan.js";
import { commandEnvironment } from "../domain/queue/command-context.js";
import type { MachineBmc } from "../domain/sabakan/machine-bmc.js";
import { findRepairOperation, type RepairConfig } from "../domain/queue/repair-config.js";
import { isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import { isCheckable, type RepairObservation } from "../domain/queue/repair-plan.js";
import { mapBounded } from "./bounded-map.js";
import type { CommandOwner } from "../domain/queue/command-marker.js";
import { inheritedCommand } from "../domain/queue/entry-command.js";
import type { JobRegistry } from "./job-registry.js";
import type { HealthVerdicts } from "./health-verdicts.js";
import { gatherProofSignals } from "./proof-signals.js";

export interface GatherDeps {
  readonly repair: RepairConfig;
  readonly commands: CommandRunner;
  readonly nodes: NodeOperator | null;
  readonly jobs: JobRegistry;
  readonly healthCheckConcurrency: number;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  /** Ends the Kubernetes calls (the runner stopping). */
  readonly signal: AbortSignal;
  /** sabakan, for proof of repair's `sabakan_healthy`; absent or null: that signal never holds. */
  readonly machines?: MachineSource | null;
  /** The rack of a machine as sabakan last said (bounds the proof query); absent: unknown. */
  readonly rackOf?: (address: string) => number | null;
  /** The BMC of a machine as sabakan last said, for the health check's environment; absent: unknown. */
  readonly bmcOf?: (address: string) => MachineBmc | null;
  /**
   * The jobs as they were before the entries were read (see RepairRunner's pass); absent: as they are when the
   * gathering starts. A job seen ended must have committed its outcome before the entries were read.
   */
  readonly jobKinds?: ReadonlyMap<number, RepairObservation["job"]>;
  /** This process and the margin of inherited commands (see inheritedCommand), with the time; absent: none judged. */
  readonly fence?: { readonly owner: CommandOwner; readonly marginSeconds: number; readonly now: number };
  /** Verdicts kept from earlier passes, reused while they hold; absent: every entry is checked every pass. */
  readonly verdicts?: HealthVerdicts;
}

/**
 * The node name for each address: the Node whose InternalIP, or else whose name, equals it. InternalIPs are keyed in
 * canonical form (an entry for `::ffff:10.0.0.3` is stored as 10.0.0.3), and one that is not an IP address is
 * left out, so no entry's address can match it.
 */
export function nodeNamesByAddress(nodes: readonly ClusterNode[]): Map<string, string> {
  const byAddress = new Map<string, string>();
  for (const node of nodes) if (!byAddress.has(node.name)) byAddress.set(node.name, node.name);
  for (const node of nodes) for (const ip of canonicalAddresses(node.internalIPs)) byAddress.set(ip, node.name);
  return byAddress;
}

/**
 * Observes everything the decision needs about the entries in the queue: node names (one list call), health
 * checks of every unfinished entry whatever its step and step status (CKE's op/status.go), but one whose command
 * (repair, success, diagnostics) runs now, which that command's outcome moves on (concurrently, bounded, so N slow
 * checks cost about one timeout; a verdict `deps.verdicts` still holds is reused instead, and its entry listed in
 * `reused`), and whether finished eviction jobs' nodes are empty. A failed node listing throws: without it,
 * kintsugi cannot tell nodes from other machines and must not decide to repair a node without draining it.
 */
export async function gatherObservations(
  entries: readonly RepairEntry[],
  deps: GatherDeps,
): Promise<{ observations: Map<number, RepairObservation>; nodes: ClusterNode[]; reused: Set<number> }> {
  const clusterNodes = deps.nodes ? await deps.nodes.listNodes({ signal: deps.signal }) : [];
  const names = nodeNamesByAddress(clusterNodes);
  const live = entries.filter((e) => !e.deleted && !isFinished(e));
  // The jobs as they are before any health check starts: a job that ends while the checks run (its command done,
  // its outcome committed) must still be seen as running by this pass, which has no health check of its entry. Seen
  // as ended, the entry would look watched out with no healthy verdict, and a repaired machine would fail.
  const kindOf = (index: number) => (deps.jobKinds ? (deps.jobKinds.get(index) ?? "none") : deps.jobs.kindOf(index));
  const jobs = new Map(live.map((e) => [e.index, { kind: kindOf(e.index), drainDone: deps.jobs.drainDone(e.index, e.lastTransitionTime) }]));
  const jobOf = (entry: RepairEntry) => jobs.get(entry.index) as { kind: RepairObservation["job"]; drainDone: boolean };
  // A command another process started may still run on the machine: no health check runs there meanwhile.
  const fence = deps.fence;
  const inherited = new Map(live.map((e) => [e.index, fence ? inheritedCommand(e, jobOf(e).kind, fence.owner, fence.marginSeconds, fence.now) : null]));
  // A deleted entry leaves the queue at this pass unless a command another replica started for it may still run.
  const leaving = fence ? entries.filter((e) => e.deleted && !isFinished(e)) : [];
  const mayRun = (entry: RepairEntry) => inherited.get(entry.index)?.kind === "may-run";
  // Nor beside a command of another entry of the same machine (the queue allows two entries of one machine).
  const commanded = new Set(live.filter((e) => !isCheckable(jobOf(e).kind) || mayRun(e)).map((e) => e.address));
  const checkable = (entry: RepairEntry) => isCheckable(jobOf(entry).kind) && !commanded.has(entry.address);

  deps.verdicts?.retain(new Set(live.map((e) => e.index)));
  const reused = new Set<number>();
  const health = await mapBounded(
    live,
    deps.healthCheckConcurrency,
    async (entry) => {
      if (!checkable(entry)) return undefined;
      const kept = deps.verdicts?.fresh(entry, deps.jobs.generation(entry.index));
      if (kept !== undefined) {
        reused.add(entry.index);
        return kept;
      }
      return checkHealth(entry, names.get(entry.address) ?? "", deps);
    },
    deps.signal,
  );

  const drains = await Promise.all(
    live.map(async (entry) => {
      const nodename = names.get(entry.address) ?? "";
      if (entry.stepStatus !== "draining" || !jobOf(entry).drainDone || nodename === "" || !deps.nodes) return undefined;
      try {
        return podsBlockingDrain(await deps.nodes.listPods(nodename, { signal: deps.signal })).length === 0;
      } catch (err) {
        deps.log("cannot list the pods of a draining node", { node: nodename, err: (err as Error).message });
        return false;
      }
    }),
  );

  // Proof of repair: only for entries of operations that require it, and only those whose health is checked.
  const byName = new Map(clusterNodes.map((n) => [n.name, n]));
  const idle = live.filter(checkable);
  const proofs = await gatherProofSignals(idle, (address) => byName.get(names.get(address) ?? ""), {
    repair: deps.repair,
    machines: deps.machines ?? null,
    rackOf: deps.rackOf ?? (() => null),
    log: deps.log,
  });

  const observations = new Map<number, RepairObservation>();
  live.forEach((entry, i) => {
    const healthy = health[i];
    const drainCompleted = drains[i];
    const node = byName.get(names.get(entry.address) ?? "");
    observations.set(entry.index, {
      nodename: names.get(entry.address) ?? "",
      job: jobOf(entry).kind,
      drainJobDone: jobOf(entry).drainDone,
      ...(healthy !== undefined && { healthy }),
      ...(drainCompleted !== undefined && { drainCompleted }),
      ...(node && { cordoned: node.unschedulable && node.annotations[CORDONED_BY_ANNOTATION] === cordonOwner(entry.index) }),
      ...(proofs.has(entry.index) && { proof: proofs.get(entry.index) }),
      ...(inherited.get(entry.index) && { inherited: inherited.get(entry.index) ?? undefined }),
    });
  });
  for (const entry of leaving) {
    const job = kindOf(entry.index);
    const state = fence && inheritedCommand(entry, job, fence.owner, fence.marginSeconds, fence.now);
    if (!state) continue;
    observations.set(entry.index, { nodename: names.get(entry.address) ?? "", job, drainJobDone: false, inherited: state });
  }
  return { observations, nodes: clusterNodes, reused };
}

/**
 * Runs the entry's health check command (its operation's, the address appended): healthy iff it exits 0 and prints
 * exactly `true`. Undefined when the entry's operation is not configured. The verdict is kept in `deps.verdicts`.
 */
export async function checkHealth(entry: RepairEntry, nodename: string, deps: GatherDeps): Promise<boolean | undefined> {
  const found = findRepairOperation(deps.repair, entry.machineType, entry.operation);
  if (!found.ok) return undefined;
  const op = found.operation;
  const env = commandEnvironment({ ...entry, nodename }, null, deps.bmcOf?.(entry.address) ?? null);
  const jobGeneration = deps.jobs.generation(entry.index);
  // Aborted with the pass (the runner stopping): shutdown and deposition never wait on a slow check.
  const outcome = await deps.commands.run([...op.healthCheckCommand, entry.address], { timeoutSeconds: op.commandTimeoutSeconds, env, signal: deps.signal });
  const healthy = outcome.kind === "ok" && outcome.stdout.trim() === "true";
  deps.verdicts?.record(entry, healthy, jobGeneration);
  return healthy;
}
