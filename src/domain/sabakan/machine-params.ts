/** Sabakan's machine states, upper-case as its API spells them. */
export const MACHINE_STATES = ["UNINITIALIZED", "HEALTHY", "UNHEALTHY", "UNREACHABLE", "UPDATING", "RETIRING", "RETIRED"] as const;
export type MachineState = (typeof MACHINE_STATES)[number];

/** Sabakan's MachineParams: the variables of `searchMachines`. */
export interface MachineParams {
  readonly labels?: ReadonlyArray<{ readonly name: string; readonly value: string }> | null;
  readonly racks?: readonly number[] | null;
  readonly roles?: readonly string[] | null;
  readonly states?: readonly MachineState[] | null;
  readonly minDaysBeforeRetire?: number | null;
}

/** The `having` / `notHaving` pair that sabakan-triggered repair sends. */
export interface MachineQueryVariables {
  readonly having: MachineParams | null;
  readonly notHaving: MachineParams | null;
}

/** CKE's defaults: unhealthy or unreachable machines that are not boot servers. */
export const DEFAULT_AUTO_REPAIR_VARIABLES: MachineQueryVariables = {
  having: { states: ["UNHEALTHY", "UNREACHABLE"] },
  notHaving: { roles: ["boot"] },
};

/** CKE's sabakan integration defaults: every machine that is not a boot server and not retired. */
export const DEFAULT_CLUSTER_VARIABLES: MachineQueryVariables = {
  having: null,
  notHaving: { roles: ["boot"], states: ["RETIRED"] },
};

export type MachineParamsResult = { readonly ok: true } | { readonly ok: false; readonly message: string };

/**
 * Checks what the GraphQL types cannot: racks are >= 0, labels have a non-empty name, roles are non-empty.
 * `path` prefixes the field named in the message (`having.racks[1]: must be >= 0`).
 */
export function checkMachineParams(params: MachineParams | null | undefined, path: string): MachineParamsResult {
  if (!params) return { ok: true };
  for (const [i, rack] of (params.racks ?? []).entries()) {
    if (!Number.isInteger(rack) || rack < 0) return { ok: false, message: `${path}.racks[${i}]: must be >= 0` };
  }
  for (const [i, label] of (params.labels ?? []).entries()) {
    if (label.name === "") return { ok: false, message: `${path}.labels[${i}].name: must not be empty` };
  }
  for (const [i, role] of (params.roles ?? []).entries()) {
    if (role === "") return { ok: false, message: `${path}.roles[${i}]: must not be empty` };
  }
  for (const [i, state] of (params.states ?? []).entries()) {
    if (!(MACHINE_STATES as readonly string[]).includes(state)) {
      return { ok: false, message: `${path}.states[${i}]: unknown machine state ${JSON.stringify(state)}` };
    }
  }
  return { ok: true };
}
