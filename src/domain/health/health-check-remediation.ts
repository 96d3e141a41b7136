import type { HealthCheckConfig } from "./health-check-config.js";
import type { HealthCheckEvaluation, TargetEvaluation } from "./health-check-evaluation.js";
import { findRepairOperation, type RepairConfig } from "../queue/repair-config.js";
import type { DecidedRepairEntry, RepairEntry } from "../queue/repair-entry.js";
import { describeHold, type MachineHold } from "../holds/machine-holds.js";
import { rackLimitReason, type EscalationHold, type EscalationInput } from "../intake/auto-repair-intake.js";
import { decideEscalation } from "../escalation/repair-escalation.js";

/** The `source` of entries a health check enqueues, and the actor of their history records: `health-check:NAME`. */
export function healthCheckSource(name: string): string {
  return `health-check:${name}`;
}

/** A target a check did not remediate although it is unhealthy, and why. */
export interface HeldTarget {
  readonly node: string;
  readonly reason: string;
}

/** A check's latest evaluation, as operators see it. */
export interface HealthCheckStatus {
  readonly check: HealthCheckConfig;
  readonly paused: boolean;
  readonly evaluation: HealthCheckEvaluation | null;
  readonly held: readonly HeldTarget[];
  readonly evaluatedAt: number | null;
  readonly error: string | null;
}

export interface RemediationDecision {
  /** Each with the reason its history records (see remediationEntryReason). */
  readonly enqueue: readonly DecidedRepairEntry[];
  readonly held: readonly HeldTarget[];
  /** The holds escalation asks for; absent when none. */
  readonly escalationHolds?: readonly EscalationHold[];
  /** Why an address enqueued here got the escalation operation (by address); absent when none did. */
  readonly escalated?: ReadonlyMap<string, string>;
}

/** What remediation weighs besides the evaluation: the queue, its cap, the repair procedures, the machine types. */
export interface RemediationContext {
  /** Every entry that persists in the queue. */
  readonly entries: readonly RepairEntry[];
  readonly maximumRepairQueueEntries: number;
  readonly repair: RepairConfig;
  /** The machine type of a node, from sabakan or the configured Node label; null when unknown. */
  readonly machineTypeOf: (node: string, address: string) => string | null;
  /** The holds in force, by canonical address (see activeHolds); absent: none. */
  readonly holds?: ReadonlyMap<string, MachineHold>;
  /** `repair.escalation` (its `repair` is this context's); absent: none (CKE). */
  readonly escalation?: Omit<EscalationInput, "repair">;
  /** `maximum-unhealthy-machines-per-rack` (0: off) and each machine's rack as sabakan says; absent: off. */
  readonly rackLimit?: { readonly maximum: number; readonly rackOf: (address: string) => number | null };
}

/**
 * What an evaluated check remediates: nothing while its gate is closed; otherwise every unhealthy target, as a
 * repair entry for its address with the check's operation, subject to the queue's own rules: an address with a
 * persisting entry is not enqueued again; a held machine is held with its hold's description; as the sabakan trigger
 * does, every target of a rack with more unhealthy targets than `maximum-unhealthy-machines-per-rack` is held (a
 * target whose rack sabakan does not name is not counted); a target without a usable address, whose machine type is unknown, or
 * whose type has no procedure with the check's operation (CKE's lookup, as the queue makes it) is held with the
 * reason, never enqueued to fail at once; a repeat offender (decideEscalation) is enqueued with the escalation
 * operation instead (held when its type has none), or held and its hold asked for; when the persisting entries plus the new ones and
 * the repeat offenders to hold would exceed `maximum-repair-queue-entries`, none is enqueued (all or nothing, as the sabakan trigger
 * does) and no hold is asked for.
 */
export function decideRemediation(check: HealthCheckConfig, evaluation: HealthCheckEvaluation, context: RemediationContext): RemediationDecision {
  const { entries, maximumRepairQueueEntries, repair, machineTypeOf } = context;
  const unhealthy = evaluation.targets.filter((t) => t.state === "unhealthy");
  if (!evaluation.gate.open)
    return { enqueue: [], held: unhealthy.map((t) => ({ node: t.node, reason: `remediation short-circuited: ${evaluation.gate.reason}` })) };
  const persisting = new Set(entries.map((e) => e.address));
  const held: HeldTarget[] = [];
  const enqueue: DecidedRepairEntry[] = [];
  const escalationHolds: EscalationHold[] = [];
  const escalated = new Map<string, string>();
  const toHold = new Set<string>();
  const overfullRack = rackCheck(unhealthy, context.rackLimit);
  for (const t of unhealthy) {
    if (t.address === null) {
      held.push({ node: t.node, reason: t.addressProblem ?? "the node has no InternalIP" });
      continue;
    }
    if (persisting.has(t.address)) continue;
    const hold = context.holds?.get(t.address);
    if (hold) {
      held.push({ node: t.node, reason: describeHold(hold) });
      continue;
    }
    const overfull = overfullRack(t.address);
    if (overfull !== null) {
      held.push({ node: t.node, reason: overfull });
      continue;
    }
    const machineType = machineTypeOf(t.node, t.address);
    if (machineType === null) {
      held.push({
        node: t.node,
        reason: check.machineType.from === "sabakan" ? `sabakan has no machine with address ${t.address}` : `the node has no label ${check.machineType.label}`,
      });
      continue;
    }
    const escalation =
      context.escalation &&
      decideEscalation(
        context.escalation.config,
        t.address,
        { entries, finished: context.escalation.finished, ...(context.escalation.releases && { releases: context.escalation.releases }) },
        context.escalation.now,
      );
    if (escalation?.kind === "hold") {
      toHold.add(t.node);
      held.push({ node: t.node, reason: `escalated: ${escalation.reason}` });
      escalationHolds.push({ address: t.address, serial: null, reason: escalation.holdReason });
      continue;
    }
    const operation = escalation ? escalation.operation : check.operation;
    const lookup = findRepairOperation(repair, machineType, operation);
    if (!lookup.ok) {
      held.push({
        node: t.node,
        reason: `${escalation ? `escalated: ${escalation.reason}, but ` : ""}not enqueued, the entry would fail at once: ${lookup.message}`,
      });
      continue;
    }
    if (escalation) escalated.set(t.address, escalation.reason);
    persisting.add(t.address);
    enqueue.push({
      address: t.address,
      machineType,
      operation,
      serial: null,
      source: healthCheckSource(check.name),
      reason: remediationEntryReason(check.name, t, escalation ? escalation.reason : null),
    });
  }
  // A repeat offender to hold is a candidate as much as a node to enqueue (the sabakan trigger counts both).
  const candidates = enqueue.length + escalationHolds.length;
  if (candidates > 0 && entries.length + candidates > maximumRepairQueueEntries) {
    const why = `too many repair requests (${entries.length} in the queue + ${candidates} > maximum-repair-queue-entries ${maximumRepairQueueEntries})`;
    // A pass the cap stops acts on nothing: no repeat offender is held by it either (the next pass decides again).
    const notHeld = held.map((h) => (toHold.has(h.node) ? { node: h.node, reason: why } : h));
    return {
      enqueue: [],
      held: [...notHeld, ...enqueue.map((e) => ({ node: unhealthy.find((t) => t.address === e.address)?.node ?? e.address, reason: why }))],
    };
  }
  return { enqueue, held, ...extras(escalationHolds, escalated) };
}

/**
 * Why a target's rack holds it back (the sabakan trigger's words), or null: the rack has more unhealthy targets (every
 * one with an address whose rack is known) than the limit.
 */
function rackCheck(unhealthy: readonly TargetEvaluation[], limit: RemediationContext["rackLimit"]): (address: string) => string | null {
  if (!limit || limit.maximum <= 0) return () => null;
  const perRack = new Map<number, number>();
  for (const t of unhealthy) {
    const rack = t.address === null ? null : limit.rackOf(t.address);
    if (rack !== null) perRack.set(rack, (perRack.get(rack) ?? 0) + 1);
  }
  return (address) => {
    const rack = limit.rackOf(address);
    const count = rack === null ? 0 : (perRack.get(rack) ?? 0);
    return rack !== null && count > limit.maximum ? rackLimitReason(rack, count) : null;
  };
}

/** The escalation fields of a decision, present only when escalation did something (a decision without stays CKE's). */
function extras(
  escalationHolds: readonly EscalationHold[],
  escalated: ReadonlyMap<string, string>,
): Pick<RemediationDecision, "escalationHolds" | "escalated"> {
  return { ...(escalationHolds.length > 0 && { escalationHolds }), ...(escalated.size > 0 && { escalated }) };
}

/**
 * The reason of the `created` history record of an entry a health check enqueues: the node and the condition it
 * failed, and why it got the escalation operation (`escalated`, null when it did not).
 */
export function remediationEntryReason(check: string, target: Pick<TargetEvaluation, "node" | "rule">, escalated: string | null): string {
  const { rule } = target;
  const failed = rule === null ? "an unhealthy condition" : `${rule.type}=${rule.status} for more than ${rule.timeoutSeconds} s`;
  const why = escalated === null ? "" : `; escalated: ${escalated}`;
  return `enqueued by health check ${check}: node ${target.node} has ${failed}${why}`;
}
