import { bmcTypeDifferingInCase } from "../domain/sabakan/machine-bmc.js";
import type { ConfigProblem } from "./load-config.js";

/**
 * The characters sabakan accepts in a machine's BMC type (its `reValidBmcType`, checked when a machine is
 * registered, in sabakan's machines.go and web/machines.go): letters, digits, '-', '_', '/' and '.'.
 */
const SABAKAN_BMC_TYPE = /^[a-zA-Z0-9\-_/.]+$/;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every string of the repair procedures' `machine_types` with its path; a value of the wrong type is the schema's. */
function machineTypes(data: unknown): Array<{ readonly path: string; readonly value: string }> {
  const repair = isMapping(data) ? data["repair"] : undefined;
  const procedures = isMapping(repair) && Array.isArray(repair["repair_procedures"]) ? repair["repair_procedures"] : [];
  return procedures.flatMap((procedure: unknown, i) => {
    const types = isMapping(procedure) && Array.isArray(procedure["machine_types"]) ? procedure["machine_types"] : [];
    return types.flatMap((value: unknown, j) => (typeof value === "string" ? [{ path: `repair.repair_procedures[${i}].machine_types[${j}]`, value }] : []));
  });
}

/**
 * The `machine_types` of the repair procedures that no machine of sabakan can have as its BMC type, each with its
 * path: auto-repair and health checks would never choose such a procedure, only entries added by hand with that
 * type could. A warning, not a refusal: CKE takes any string, and the type of an entry added by hand is the
 * operator's (ckecli repair-queue add OPERATION MACHINE_TYPE ADDRESS).
 */
export function machineTypeWarnings(data: unknown): ConfigProblem[] {
  return machineTypes(data)
    .filter(({ value }) => value !== "" && !SABAKAN_BMC_TYPE.test(value))
    .map(({ path, value }) => ({
      path,
      message: `${JSON.stringify(value)} can never be a sabakan machine's BMC type (sabakan accepts letters, digits, '-', '_', '/' and '.'): only entries added by hand would use this procedure`,
    }));
}

/**
 * A warning for each `machine_types` value that differs from a known sabakan BMC type only by letter case (see
 * bmcTypeDifferingInCase), with its path. A warning, not a refusal: the match stays exact, as in CKE, and a custom
 * type is allowed.
 */
export function machineTypeCaseWarnings(data: unknown): ConfigProblem[] {
  return machineTypes(data).flatMap(({ path, value }) => {
    const known = bmcTypeDifferingInCase(value);
    return known === null
      ? []
      : [
          {
            path,
            message: `${JSON.stringify(value)} differs from sabakan's BMC type ${JSON.stringify(known)} only by case; machine types match bmc.type exactly (as in CKE), so it matches no ${known} machine`,
          },
        ];
  });
}
