import type { HealthCheckEvaluation } from "../health/health-check-evaluation.js";
import type { RemediationContext, RemediationDecision } from "../health/health-check-remediation.js";
import type { MachineHold } from "../holds/machine-holds.js";

/**
 * What one health check's remediation read and did (the replay's input for health checks): the gate, and of the
 * targets only the unhealthy ones (decideRemediation reads no other), in columns: the node, its address (null with
 * the address problem), the machine type as the check resolved it (null: unknown), the rack as sabakan named it
 * (null: none); then the addresses of the persisting entries, the targets that were held, the limits in force, and
 * what was enqueued. Records written before the rack was kept have neither `rackLimit` nor `unhealthy.rack`: their
 * replay applies no rack limit.
 */
export interface RemediationRecord {
  /** Milliseconds since the epoch: the evaluation's `now`. */
  readonly time: number;
  /** The check's name (its config is the replay's). */
  readonly check: string;
  readonly gate: { readonly open: boolean; readonly reason: string | null };
  /** How many targets the check evaluated (healthy and pending ones are counted, not kept). */
  readonly targets: number;
  /** How many of them were pending: they count against maxUnhealthy, so a replayed gate needs them. */
  readonly pending: number;
  readonly unhealthy: {
    readonly node: readonly string[];
    readonly address: ReadonlyArray<string | null>;
    readonly addressProblem: ReadonlyArray<string | null>;
    readonly machineType: ReadonlyArray<string | null>;
    /** Present when the per-rack limit was on and sabakan's racks were read (a closed gate's too, for a replay that opens it). */
    readonly rack?: ReadonlyArray<number | null>;
  };
  readonly queue: readonly string[];
  readonly held: readonly string[];
  readonly maximumRepairQueueEntries: number;
  /** `maximum-unhealthy-machines-per-rack` in force, with the racks (`unhealthy.rack`); absent without them. */
  readonly rackLimit?: number;
  readonly enqueued: readonly string[];
  /** Whether the queue limit stopped the remediation (nothing enqueued although candidates were kept). */
  readonly shortCircuited: boolean;
}

/** The record of one remediation: its evaluation and context (as decideRemediation read them) and its decision. */
export function recordRemediation(
  evaluation: HealthCheckEvaluation,
  context: RemediationContext,
  decision: RemediationDecision,
  now: number,
): RemediationRecord {
  const unhealthy = evaluation.targets.filter((t) => t.state === "unhealthy");
  const typed = unhealthy.map((t) => (t.address === null ? null : context.machineTypeOf(t.node, t.address)));
  const rackLimit = context.rackLimit && context.rackLimit.maximum > 0 ? context.rackLimit : null;
  return {
    time: now,
    check: evaluation.name,
    gate: { open: evaluation.gate.open, reason: evaluation.gate.reason },
    targets: evaluation.targets.length,
    pending: evaluation.targets.filter((t) => t.state === "pending").length,
    unhealthy: {
      node: unhealthy.map((t) => t.node),
      address: unhealthy.map((t) => t.address),
      addressProblem: unhealthy.map((t) => t.addressProblem),
      machineType: typed,
      ...(rackLimit && { rack: unhealthy.map((t) => (t.address === null ? null : rackLimit.rackOf(t.address))) }),
    },
    queue: context.entries.map((e) => e.address),
    held: unhealthy.flatMap((t) => (t.address !== null && context.holds?.has(t.address) ? [t.address] : [])),
    maximumRepairQueueEntries: context.maximumRepairQueueEntries,
    ...(rackLimit && { rackLimit: rackLimit.maximum }),
    enqueued: decision.enqueue.map((e) => e.address),
    shortCircuited: decision.enqueue.length === 0 && decision.held.some((h) => h.reason.startsWith("too many repair requests")),
  };
}

/** The evaluation a record stands for: its gate and unhealthy targets (what decideRemediation reads). */
export function recordedEvaluation(record: RemediationRecord): HealthCheckEvaluation {
  const u = record.unhealthy;
  return {
    name: record.check,
    expected: record.targets,
    currentHealthy: record.targets - u.node.length - record.pending,
    unhealthyCount: u.node.length + record.pending,
    gate: { open: record.gate.open, remediationsAllowed: 0, reason: record.gate.reason },
    targets: u.node.map((node, i) => ({
      node,
      address: u.address[i] ?? null,
      addressProblem: u.addressProblem[i] ?? null,
      state: "unhealthy" as const,
      rule: null,
      since: null,
      nextCheckAt: null,
    })),
    nextCheckAt: null,
  };
}

/** The machine types and holds a record kept, as decideRemediation's context reads them. */
export function recordedLookups(record: RemediationRecord): Pick<RemediationContext, "machineTypeOf" | "holds"> {
  const types = new Map(record.unhealthy.node.map((node, i) => [node, record.unhealthy.machineType[i] ?? null]));
  const holds = new Map<string, MachineHold>(
    record.held.map((address) => [address, { address, reason: "held when recorded", setBy: "recorded", setAt: record.time, until: null, source: "api" }]),
  );
  return { machineTypeOf: (node) => types.get(node) ?? null, holds };
}

/**
 * The per-rack limit for a replay of `record`: `maximum` (the record's own when undefined) over the racks it kept;
 * none when it kept no racks (the limit did not apply, or the record predates them) or the maximum is 0 (off).
 */
export function recordedRackLimit(record: RemediationRecord, maximum: number | undefined = record.rackLimit): RemediationContext["rackLimit"] {
  const racks = record.unhealthy.rack;
  if (racks === undefined || maximum === undefined || maximum <= 0) return undefined;
  const byAddress = new Map<string, number | null>();
  record.unhealthy.address.forEach((address, i) => {
    if (address !== null) byAddress.set(address, racks[i] ?? null);
  });
  return { maximum, rackOf: (address) => byAddress.get(address) ?? null };
}
