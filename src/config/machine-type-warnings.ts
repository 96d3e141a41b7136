import { bmcTypeDifferingInCase } from "../domain/sabakan-bmc-types.js";
import type { ConfigProblem } from "./load-config.js";

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A warning for each `machine_types` value of the `repair` section that differs from a known sabakan BMC type only
 * by letter case (see bmcTypeDifferingInCase), with its path. A warning, not a refusal: the match stays exact, as in
 * CKE, and a custom type is allowed. Only lists of strings are read; a value of the wrong type is the schema's.
 */
export function machineTypeCaseWarnings(data: unknown): ConfigProblem[] {
  if (!isMapping(data) || !isMapping(data["repair"])) return [];
  const procedures = data["repair"]["repair_procedures"];
  if (!Array.isArray(procedures)) return [];
  const warnings: ConfigProblem[] = [];
  procedures.forEach((procedure, i) => {
    const types = isMapping(procedure) ? procedure["machine_types"] : undefined;
    if (!Array.isArray(types)) return;
    types.forEach((value, j) => {
      const known = typeof value === "string" ? bmcTypeDifferingInCase(value) : null;
      if (known === null) return;
      warnings.push({
        path: `repair.repair_procedures[${i}].machine_types[${j}]`,
        message: `${JSON.stringify(value)} differs from sabakan's BMC type ${JSON.stringify(known)} only by case; machine types match bmc.type exactly (as in CKE), so it matches no ${known} machine`,
      });
    });
  });
  return warnings;
}
