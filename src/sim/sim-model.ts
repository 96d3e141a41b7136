import type { PacingDomain } from "../domain/pacing/repair-pacing.js";
import type { SuccessProof } from "../domain/proof/repair-evidence.js";
import type { EscalationConfig } from "../domain/escalation/repair-escalation.js";
import type { MaxUnhealthy } from "../domain/health/health-check-config.js";
import type { SimRandom } from "./sim-random.js";
import { DEFAULT_INHERITED_COMMAND_MARGIN_SECONDS, MIN_INHERITED_COMMAND_MARGIN_SECONDS } from "../domain/queue/command-marker.js";

/** The operation escalation enqueues when it is configured with one (`repair.escalation.operation`). */
export const SIM_ESCALATION_OPERATION = "escalated";

/**
 * What a run of the whole model configures besides CKE's shape of repair, drawn from the seed (a stream of its own):
 * every kintsugi rule that a configuration turns on has a chance of being on, so a sweep of seeds exercises each of
 * them with the others. The classic model (the simulator's first) turns all of them off.
 */
export interface SimModel {
  /** Every operation runs a success command (it fails now and then: the entry then fails). */
  readonly successCommand: boolean;
  /** `command_retries` of every step (their `command_interval` is 0: an interval is a wall-clock sleep). */
  readonly commandRetries: number;
  /** Every operation runs a diagnostics command before its first drain or repair command. */
  readonly diagnostics: boolean;
  /** `repair.pacing` domains; null: no pacing. */
  readonly pacing: readonly PacingDomain[] | null;
  /** `success_requires` / `success_dwell_seconds` of every operation; undefined: CKE's proof (the health check). */
  readonly proof: SuccessProof | undefined;
  /** `repair.escalation`; undefined: off. */
  readonly escalation: EscalationConfig | undefined;
  /** The health check's limit: a maximum (count or percentage) or a range. */
  readonly healthLimit: { readonly maxUnhealthy: MaxUnhealthy } | { readonly range: { readonly min: number; readonly max: number } };
  /** The health check starts paused (operators resume and pause it as the run goes). */
  readonly healthPaused: boolean;
  /** sabakan calls a machine CKE reboots UNREACHABLE while it reboots. */
  readonly rebootsUnreachable: boolean;
  /** `eviction_timeout_seconds`. */
  readonly evictionTimeoutSeconds: number;
  /** The faults and operators' actions of the whole model: added entries, config changes, Kubernetes errors, aimed faults. */
  readonly full: boolean;
  /** `runner.inherited_command_margin_seconds` (the whole model fences commands; the classic one restarts cleanly). */
  readonly inheritedCommandMarginSeconds: number;
}

/** The first model: CKE's repair with no kintsugi extension but proof, and the classic faults. */
export const CLASSIC_MODEL: SimModel = {
  successCommand: false,
  commandRetries: 0,
  diagnostics: false,
  pacing: null,
  proof: undefined,
  escalation: undefined,
  healthLimit: { maxUnhealthy: { kind: "percent", value: 40 } },
  healthPaused: false,
  rebootsUnreachable: false,
  evictionTimeoutSeconds: 600,
  full: false,
  inheritedCommandMarginSeconds: DEFAULT_INHERITED_COMMAND_MARGIN_SECONDS,
};

/** The proofs a whole-model seed draws from: every signal, alone and together, and dwells shorter and longer than the watches. */
const PROOFS: ReadonlyArray<SuccessProof | undefined> = [
  undefined,
  undefined,
  { requires: ["node_ready"], dwellSeconds: 120 },
  { requires: ["sabakan_healthy"], dwellSeconds: 300 },
  { requires: ["boot_id_changed"], dwellSeconds: 0 },
  { requires: ["node_ready", "sabakan_healthy"], dwellSeconds: 600 },
  { requires: ["node_ready", "boot_id_changed", "sabakan_healthy"], dwellSeconds: 120 },
  // Longer than every watch: the dwell holds the watch open, so this proof is reachable.
  { requires: [], dwellSeconds: 1200 },
];

/** Draws the whole model for one seed. */
export function drawModel(r: SimRandom): SimModel {
  const limit = r.pick<SimModel["healthLimit"]>([
    { maxUnhealthy: { kind: "percent", value: 40 } },
    { maxUnhealthy: { kind: "count", value: 6 } },
    { range: { min: 0, max: 8 } },
    { range: { min: 1, max: 12 } },
  ]);
  const escalation = r.pick<EscalationConfig | undefined>([
    undefined,
    undefined,
    // A repair an hour: a machine repaired once fails again soon after in an hour's run (see repaired-machine-dies-again).
    { maxRepairs: 1, windowSeconds: 6 * 3600, operation: null },
    { maxRepairs: 1, windowSeconds: 6 * 3600, operation: SIM_ESCALATION_OPERATION },
  ]);
  return {
    successCommand: r.chance(0.5),
    commandRetries: r.pick([0, 0, 1, 2]),
    diagnostics: r.chance(0.4),
    pacing: r.pick<readonly PacingDomain[] | null>([null, null, ["rack"], ["rack", "machine_type"]]),
    proof: r.pick(PROOFS),
    escalation,
    healthLimit: limit,
    healthPaused: r.chance(0.1),
    rebootsUnreachable: r.chance(0.5),
    evictionTimeoutSeconds: r.pick([300, 600]),
    full: true,
    inheritedCommandMarginSeconds: r.pick([MIN_INHERITED_COMMAND_MARGIN_SECONDS, DEFAULT_INHERITED_COMMAND_MARGIN_SECONDS]),
  };
}

/** The model in a line, for the report. */
export function describeModel(m: SimModel): string {
  if (!m.full) return "classic model";
  const parts = [
    m.successCommand && "success command",
    m.commandRetries > 0 && `${m.commandRetries} retries`,
    m.diagnostics && "diagnostics",
    m.pacing && `pacing by ${m.pacing.join("+")}`,
    m.escalation && `escalation (${m.escalation.operation ?? "hold"})`,
    "range" in m.healthLimit
      ? `health range [${m.healthLimit.range.min}-${m.healthLimit.range.max}]`
      : `health max ${m.healthLimit.maxUnhealthy.value}${m.healthLimit.maxUnhealthy.kind === "percent" ? "%" : ""}`,
    m.healthPaused && "health check paused",
    m.rebootsUnreachable && "CKE reboots UNREACHABLE",
    `eviction timeout ${m.evictionTimeoutSeconds} s`,
    `inherited command margin ${m.inheritedCommandMarginSeconds} s`,
  ];
  return parts.filter((p): p is string => typeof p === "string").join(", ");
}
