/** The safety constraints, keyed by their camelCase API names. */
export interface Constraints {
  readonly maximumRepairQueueEntries: number;
  readonly waitSecondsToRepairRebooting: number;
  readonly maximumUnhealthyMachinesPerRack: number;
  readonly controlPlaneCount: number;
  readonly minimumWorkers: number;
  readonly maximumWorkers: number;
  /** Seconds a control plane's machine must stay out of HEALTHY/UPDATING/UNINITIALIZED before it is replaced. */
  readonly waitSecondsToReplaceControlPlane: number;
}

/** The constraint names as CKE spells them (kebab-case), mapped to their API names. */
export const CONSTRAINT_NAMES = {
  "maximum-repair-queue-entries": "maximumRepairQueueEntries",
  "wait-seconds-to-repair-rebooting": "waitSecondsToRepairRebooting",
  "maximum-unhealthy-machines-per-rack": "maximumUnhealthyMachinesPerRack",
  "control-plane-count": "controlPlaneCount",
  "minimum-workers": "minimumWorkers",
  "maximum-workers": "maximumWorkers",
  "wait-seconds-to-replace-control-plane": "waitSecondsToReplaceControlPlane",
} as const satisfies Record<string, keyof Constraints>;

export type ConstraintName = keyof typeof CONSTRAINT_NAMES;

/**
 * CKE's defaults: auto-repair enqueues nothing until an operator raises maximum-repair-queue-entries. kintsugi's own
 * wait-seconds-to-replace-control-plane waits half an hour, so that a rolling reboot swaps no etcd member.
 */
export const DEFAULT_CONSTRAINTS: Constraints = {
  maximumRepairQueueEntries: 0,
  waitSecondsToRepairRebooting: 0,
  maximumUnhealthyMachinesPerRack: 0,
  controlPlaneCount: 1,
  minimumWorkers: 1,
  maximumWorkers: 0,
  waitSecondsToReplaceControlPlane: 1800,
};

export type ConstraintsResult =
  | { readonly ok: true; readonly constraints: Constraints }
  | { readonly ok: false; readonly message: string };

/** Tells whether `name` is one of CKE's constraint names that kintsugi knows. */
export function isConstraintName(name: string): name is ConstraintName {
  return Object.hasOwn(CONSTRAINT_NAMES, name);
}

/**
 * Checks a whole set of constraints by CKE's rules: every value is an integer >= 0, control-plane-count >= 1,
 * and maximum-workers is 0 (unlimited) or at least minimum-workers. The message names the offending constraint.
 */
export function checkConstraints(c: Constraints): ConstraintsResult {
  for (const [name, key] of Object.entries(CONSTRAINT_NAMES)) {
    const value = c[key];
    if (!Number.isSafeInteger(value) || value < 0) {
      return { ok: false, message: `${name} must be an integer >= 0, got ${value}` };
    }
  }
  if (c.controlPlaneCount < 1) {
    return { ok: false, message: `control-plane-count must be >= 1, got ${c.controlPlaneCount}` };
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
