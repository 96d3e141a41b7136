import type { HealthCheckConfig, MaxUnhealthy } from "../health/health-check-config.js";
import { gateOf, type HealthCheckEvaluation } from "../health/health-check-evaluation.js";
import { decideRemediation, type RemediationDecision } from "../health/health-check-remediation.js";
import type { RepairConfig } from "../queue/repair-config.js";
import { createRepairEntry, type RepairEntry } from "../queue/repair-entry.js";
import { isRackLimitReason } from "../intake/auto-repair-intake.js";
import { recordedEvaluation, recordedLookups, recordedRackLimit, type RemediationRecord } from "./remediation-record.js";

/** A check's gate limit a replay tries instead of the configured one: maxUnhealthy, or unhealthyRange. */
export type HealthCheckLimit = { readonly maxUnhealthy: MaxUnhealthy } | { readonly unhealthyRange: { readonly min: number; readonly max: number } };

/**
 * What a health check's remediation came to for one unhealthy target: enqueued; `short_circuited` (the check's gate
 * was closed: maxUnhealthy or unhealthyRange); `queue_limit` (maximum-repair-queue-entries, all or nothing);
 * `recently_repaired` (its address had an entry in the queue); `held` (an operator's hold); `rack_limit` (its rack
 * had more unhealthy targets than maximum-unhealthy-machines-per-rack); `no_address` /
 * `invalid_address`; `unknown_type` (no machine type); `no_procedure` (its type has no procedure for the
 * check's operation); `escalated` (repair.escalation held it).
 */
export type TargetFate =
  | "enqueued"
  | "short_circuited"
  | "queue_limit"
  | "recently_repaired"
  | "held"
  | "rack_limit"
  | "no_address"
  | "invalid_address"
  | "unknown_type"
  | "no_procedure"
  | "escalated";

/** The configuration a remediation replay decides with: the checks by name and the repair procedures. */
export interface RemediationReplayConfig {
  readonly checks: ReadonlyMap<string, HealthCheckConfig>;
  readonly repair: RepairConfig;
}

/** One target whose fate differs between what was and what would have been. */
export interface TargetDifference {
  readonly node: string;
  /** The canonical address, null when the node had none. */
  readonly address: string | null;
  readonly live: TargetFate;
  readonly simulated: TargetFate;
}

/** What one recorded remediation did, what it would have done on `queue` with other limits, and the differences. */
export interface ReplayedRemediation {
  readonly simulated: { readonly enqueued: readonly string[]; readonly shortCircuited: boolean; readonly gateOpen: boolean };
  readonly liveGateOpen: boolean;
  readonly differences: readonly TargetDifference[];
}

/** A recorded remediation and the simulated world to decide it again in (see replayRemediation). */
export interface RemediationToReplay {
  readonly record: RemediationRecord;
  readonly check: HealthCheckConfig;
  readonly repair: RepairConfig;
  readonly queue: readonly string[];
  readonly maximumRepairQueueEntries: number;
  readonly limit: HealthCheckLimit | undefined;
  /** maximum-unhealthy-machines-per-rack to try (undefined: the recorded one); it applies over the racks the record kept. */
  readonly maximumUnhealthyMachinesPerRack?: number | undefined;
}

/**
 * Decides a recorded remediation again with decideRemediation on the simulated `queue` (the addresses of the
 * entries persisting there), with `maximumRepairQueueEntries` and, when `limit` is given, the check's gate
 * recomputed with it by gateOf from the recorded counts (a paused check stays closed), and the per-rack limit
 * (`maximumUnhealthyMachinesPerRack`, else the recorded one) over the racks the record kept: a record kept them only
 * when the limit applied live (on, with sabakan, the gate open), so a replay cannot hold a rack the live decision
 * did not read. Its live fates come from the record decided as it was, the recorded enqueued addresses being the
 * authority on what was enqueued. Escalation is not weighed (as in the intake's replay).
 */
export function replayRemediation(replay: RemediationToReplay): ReplayedRemediation {
  const { record, check, repair, queue, maximumRepairQueueEntries, limit } = replay;
  const evaluation = recordedEvaluation(record);
  const lookups = recordedLookups(record);
  const liveRacks = recordedRackLimit(record);
  const simRacks = recordedRackLimit(record, replay.maximumUnhealthyMachinesPerRack);
  const live = decideRemediation(check, evaluation, {
    entries: asEntries(record.queue, record.time),
    maximumRepairQueueEntries: record.maximumRepairQueueEntries,
    repair,
    ...lookups,
    ...(liveRacks && { rackLimit: liveRacks }),
  });
  const gate =
    limit === undefined || record.gate.reason === "paused"
      ? evaluation.gate
      : gateOf(
          { paused: false, unhealthyRange: null, maxUnhealthy: { kind: "percent", value: 100 }, ...limit },
          evaluation.expected,
          evaluation.unhealthyCount,
        );
  const simEvaluation: HealthCheckEvaluation = { ...evaluation, gate };
  const sim = decideRemediation(check, simEvaluation, {
    entries: asEntries(queue, record.time),
    maximumRepairQueueEntries,
    repair,
    ...lookups,
    ...(simRacks && { rackLimit: simRacks }),
  });
  const recordedEnqueued = new Set(record.enqueued);
  const liveFates = fatesOf(evaluation, live, record.queue, lookups, (fate, address) =>
    address !== null && recordedEnqueued.has(address) ? "enqueued" : fate === "enqueued" ? "escalated" : fate,
  );
  const simFates = fatesOf(simEvaluation, sim, queue, lookups, (fate) => fate);
  const differences: TargetDifference[] = [];
  for (const [node, { address, fate }] of simFates) {
    const was = liveFates.get(node)?.fate ?? fate;
    if (was !== fate) differences.push({ node, address, live: was, simulated: fate });
  }
  return {
    simulated: { enqueued: sim.enqueue.map((e) => e.address), shortCircuited: !gate.open || isQueueLimited(sim), gateOpen: gate.open },
    liveGateOpen: evaluation.gate.open,
    differences,
  };
}

/** Whether the queue limit stopped a remediation (nothing enqueued, its candidates held for it). */
function isQueueLimited(decision: RemediationDecision): boolean {
  return decision.enqueue.length === 0 && decision.held.some((h) => h.reason.startsWith("too many repair requests"));
}

/** Each unhealthy target's fate in a decision, by decideRemediation's rules in its order (the texts are not read but for the queue limit's, the rack limit's and escalation's). */
function fatesOf(
  evaluation: HealthCheckEvaluation,
  decision: RemediationDecision,
  queue: readonly string[],
  lookups: ReturnType<typeof recordedLookups>,
  override: (fate: TargetFate, address: string | null) => TargetFate,
): Map<string, { address: string | null; fate: TargetFate }> {
  const enqueued = new Set(decision.enqueue.map((e) => e.address));
  const held = new Map(decision.held.map((h) => [h.node, h.reason]));
  const persisting = new Set(queue);
  const out = new Map<string, { address: string | null; fate: TargetFate }>();
  for (const t of evaluation.targets) {
    const reason = held.get(t.node) ?? "";
    let fate: TargetFate;
    if (t.address !== null && enqueued.has(t.address)) fate = "enqueued";
    else if (!evaluation.gate.open) fate = "short_circuited";
    else if (t.address === null) fate = t.addressProblem?.startsWith("the node's first InternalIP is not an address") ? "invalid_address" : "no_address";
    else if (persisting.has(t.address)) fate = "recently_repaired";
    else if (lookups.holds?.has(t.address)) fate = "held";
    else if (isRackLimitReason(reason)) fate = "rack_limit";
    else if (reason.startsWith("too many repair requests")) fate = "queue_limit";
    else if (lookups.machineTypeOf(t.node, t.address) === null) fate = "unknown_type";
    else if (reason.startsWith("escalated")) fate = "escalated";
    else fate = "no_procedure";
    out.set(t.node, { address: t.address, fate: override(fate, t.address) });
  }
  return out;
}

/** Stand-ins for the persisting entries: decideRemediation without escalation reads only their addresses and count. */
export function asEntries(addresses: readonly string[], now: number): RepairEntry[] {
  return addresses.map((address, index) => ({ ...createRepairEntry({ address, machineType: "", operation: "", serial: null, source: "replay" }, now), index }));
}
