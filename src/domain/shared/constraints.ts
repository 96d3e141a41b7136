/** The safety constraints, keyed by their camelCase API names. */
export interface Constraints {
  readonly controlPlaneCount: number;
  /**
   * CKE's `minimum-workers-rate`: CKE v1.32.2 and later retire a worker only while the workers left stay at least this
   * percentage of all the machines sabakan lists (cybozu-go/cke sabakan/generator.go). Any integer, as in CKE (over
   * 100 retires none).
   */
  readonly minimumWorkersRate: number;
  /** CKE's `maximum-unreachable-nodes-for-reboot`: stored and shown only; kintsugi has no reboot queue. */
  readonly maximumUnreachableNodesForReboot: number;
  readonly maximumRepairQueueEntries: number;
  readonly waitSecondsToRepairRebooting: number;
  readonly maximumUnhealthyMachinesPerRack: number;
  readonly minimumWorkers: number;
  readonly maximumWorkers: number;
  /** Seconds a control plane's machine must stay out of HEALTHY/UPDATING/UNINITIALIZED before it is replaced. */
  readonly waitSecondsToReplaceControlPlane: number;
}

/**
 * The constraint names as CKE spells them (kebab-case), mapped to their API names: CKE's five first, in the order of
 * CKE's `Constraints` (constraints.go) and `ckecli constraints show`, then kintsugi's own.
 */
export const CONSTRAINT_NAMES = {
  "control-plane-count": "controlPlaneCount",
  "minimum-workers-rate": "minimumWorkersRate",
  "maximum-unreachable-nodes-for-reboot": "maximumUnreachableNodesForReboot",
  "maximum-repair-queue-entries": "maximumRepairQueueEntries",
  "wait-seconds-to-repair-rebooting": "waitSecondsToRepairRebooting",
  "maximum-unhealthy-machines-per-rack": "maximumUnhealthyMachinesPerRack",
  "minimum-workers": "minimumWorkers",
  "maximum-workers": "maximumWorkers",
  "wait-seconds-to-replace-control-plane": "waitSecondsToReplaceControlPlane",
} as const satisfies Record<string, keyof Constraints>;

export type ConstraintName = keyof typeof CONSTRAINT_NAMES;

/**
 * The lowest value kintsugi takes for each constraint, and why, or null for any integer. CKE takes any integer for
 * its five (ckecli's `strconv.Atoi`); kintsugi is stricter only where a value would be unsafe: a typed "-1" often
 * means "unlimited" or "forever" elsewhere, and here it would silently mean the opposite.
 */
export const CONSTRAINT_MINIMUMS: Readonly<Record<keyof Constraints, { readonly min: number; readonly why: string } | null>> = {
  controlPlaneCount: { min: 1, why: "a cluster without a control plane cannot run" },
  minimumWorkersRate: null,
  maximumUnreachableNodesForReboot: null,
  maximumRepairQueueEntries: { min: 0, why: "a negative limit would enqueue nothing (it does not mean unlimited)" },
  waitSecondsToRepairRebooting: { min: 0, why: "a negative wait would repair a rebooting machine at once (it does not mean forever)" },
  maximumUnhealthyMachinesPerRack: { min: 0, why: "0 turns the per-rack limit off; a negative limit would hold back every rack" },
  minimumWorkers: { min: 0, why: "a number of workers cannot be negative" },
  maximumWorkers: { min: 0, why: "0 means unlimited; a negative limit has no meaning" },
  waitSecondsToReplaceControlPlane: { min: 0, why: "0 replaces at once; a negative wait has no meaning" },
};

/**
 * CKE's defaults (constraints.go `DefaultConstraints`): auto-repair enqueues nothing until an operator raises
 * maximum-repair-queue-entries. kintsugi's own wait-seconds-to-replace-control-plane waits half an hour, so that a
 * rolling reboot swaps no etcd member.
 */
export const DEFAULT_CONSTRAINTS: Constraints = {
  controlPlaneCount: 1,
  minimumWorkersRate: 80,
  maximumUnreachableNodesForReboot: 0,
  maximumRepairQueueEntries: 0,
  waitSecondsToRepairRebooting: 0,
  maximumUnhealthyMachinesPerRack: 0,
  minimumWorkers: 1,
  maximumWorkers: 0,
  waitSecondsToReplaceControlPlane: 1800,
};

export type ConstraintsResult = { readonly ok: true; readonly constraints: Constraints } | { readonly ok: false; readonly message: string };

/** Tells whether `name` is one of CKE's constraint names that kintsugi knows. */
export function isConstraintName(name: string): name is ConstraintName {
  return Object.hasOwn(CONSTRAINT_NAMES, name);
}

/**
 * Checks a whole set of constraints: every value is a safe integer at least its {@link CONSTRAINT_MINIMUMS} (the
 * message says why), and maximum-workers is 0 (unlimited) or at least minimum-workers. The message names the
 * offending constraint.
 */
export function checkConstraints(c: Constraints): ConstraintsResult {
  for (const [name, key] of Object.entries(CONSTRAINT_NAMES)) {
    const value = c[key];
    if (!Number.isSafeInteger(value)) return { ok: false, message: `${name} must be an integer, got ${value}` };
    const lowest = CONSTRAINT_MINIMUMS[key];
    if (lowest && value < lowest.min) return { ok: false, message: `${name} must be an integer >= ${lowest.min}, got ${value}: ${lowest.why}` };
  }
  if (c.maximumWorkers !== 0 && c.maximumWorkers < c.minimumWorkers) {
    return {
      ok: false,
      message: `maximum-workers (${c.maximumWorkers}) must be 0 (unlimited) or >= minimum-workers (${c.minimumWorkers})`,
    };
  }
  return { ok: true, constraints: c };
}

/**
 * Sets one constraint by its CKE name and checks the result as a whole, so that a value which is fine alone but
 * contradicts another constraint is refused too.
 */
export function setConstraint(current: Constraints, name: string, value: number): ConstraintsResult {
  if (!isConstraintName(name)) {
    return {
      ok: false,
      message: `unknown constraint ${JSON.stringify(name)}; known: ${Object.keys(CONSTRAINT_NAMES).join(", ")}`,
    };
  }
  return checkConstraints({ ...current, [CONSTRAINT_NAMES[name]]: value });
}
