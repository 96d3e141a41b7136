import type { ConfigProblem } from "./load-config.js";

/**
 * The characters sabakan accepts in a machine's BMC type (its `reValidBmcType`, checked when a machine is
 * registered, in sabakan's machines.go and web/machines.go): letters, digits, '-', '_', '/' and '.'.
 */
const SABAKAN_BMC_TYPE = /^[a-zA-Z0-9\-_/.]+$/;

/**
 * The `machine_types` of the repair procedures that no machine of sabakan can have as its BMC type, each with its
 * path: auto-repair and health checks would never choose such a procedure, only entries added by hand with that
 * type could. A warning, not a refusal: CKE takes any string, and the type of an entry added by hand is the
 * operator's (ckecli repair-queue add OPERATION MACHINE_TYPE ADDRESS).
 */
export function machineTypeWarnings(data: unknown): ConfigProblem[] {
  const repair = isMapping(data) ? data["repair"] : undefined;
  const procedures = isMapping(repair) && Array.isArray(repair["repair_procedures"]) ? repair["repair_procedures"] : [];
  return procedures.flatMap((procedure: unknown, i) => {
    const types = isMapping(procedure) && Array.isArray(procedure["machine_types"]) ? procedure["machine_types"] : [];
    return types.flatMap((type: unknown, j) =>
      typeof type === "string" && type !== "" && !SABAKAN_BMC_TYPE.test(type)
        ? [{ path: `repair.repair_procedures[${i}].machine_types[${j}]`, message: `${JSON.stringify(type)} can never be a sabakan machine's BMC type (sabakan accepts letters, digits, '-', '_', '/' and '.'): only entries added by hand would use this procedure` }]
        : [],
    );
  });
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
