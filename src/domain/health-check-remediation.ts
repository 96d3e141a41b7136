import type { HealthCheckConfig } from "./health-check-config.js";
import type { HealthCheckEvaluation } from "./health-check-evaluation.js";
import type { NewRepairEntry, RepairEntry } from "./repair-entry.js";

/** A target a check did not remediate although it is unhealthy, and why. */
export interface HeldTarget {
  readonly node: string;
  readonly reason: string;
}

export interface RemediationDecision {
  readonly enqueue: readonly NewRepairEntry[];
  readonly held: readonly HeldTarget[];
}

/**
 * What an evaluated check remediates: nothing while its gate is closed; otherwise every unhealthy target, as a
 * repair entry for its address with the check's operation, subject to the queue's own rules: an address with a
 * persisting entry is not enqueued again, a target whose machine type is unknown is held, and when the persisting
 * entries plus the new ones would exceed `maximum-repair-queue-entries`, none is enqueued (all or nothing, as the
 * sabakan trigger does). `machineTypeOf` answers from sabakan or the configured Node label.
 */
export function decideRemediation(
  check: HealthCheckConfig,
  evaluation: HealthCheckEvaluation,
  entries: readonly RepairEntry[],
  maximumRepairQueueEntries: number,
  machineTypeOf: (node: string, address: string) => string | null,
): RemediationDecision {
  const unhealthy = evaluation.targets.filter((t) => t.state === "unhealthy");
  if (!evaluation.gate.open) return { enqueue: [], held: unhealthy.map((t) => ({ node: t.node, reason: `remediation short-circuited: ${evaluation.gate.reason}` })) };
  const persisting = new Set(entries.map((e) => e.address));
  const held: HeldTarget[] = [];
  const enqueue: NewRepairEntry[] = [];
  for (const t of unhealthy) {
    if (t.address === null) {
      held.push({ node: t.node, reason: "the node has no InternalIP" });
      continue;
    }
    if (persisting.has(t.address)) continue;
    const machineType = machineTypeOf(t.node, t.address);
    if (machineType === null) {
      held.push({ node: t.node, reason: check.machineType.from === "sabakan" ? `sabakan has no machine with address ${t.address}` : `the node has no label ${check.machineType.label}` });
      continue;
    }
    persisting.add(t.address);
    enqueue.push({ address: t.address, machineType, operation: check.operation, serial: null, source: `health-check:${check.name}` });
  }
  if (enqueue.length > 0 && entries.length + enqueue.length > maximumRepairQueueEntries) {
    const why = `too many repair requests (${entries.length} in the queue + ${enqueue.length} > maximum-repair-queue-entries ${maximumRepairQueueEntries})`;
    return { enqueue: [], held: [...held, ...enqueue.map((e) => ({ node: unhealthy.find((t) => t.address === e.address)?.node ?? e.address, reason: why }))] };
  }
  return { enqueue, held };
}
