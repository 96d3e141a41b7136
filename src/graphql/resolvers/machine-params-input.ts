import { readCkeQueryVariables } from "../../domain/sabakan/cke-query-variables.js";
import { checkMachineParams, type MachineParams, type MachineQueryVariables } from "../../domain/sabakan/machine-params.js";
import { apiError } from "../errors.js";

/**
 * Checks a MachineParams argument (INVALID_MACHINE_PARAMS naming the field) and drops its null fields, which
 * GraphQL fills in from the `= null` defaults; null stays null.
 */
export function checkedMachineParams(params: MachineParams | null | undefined, path: string): MachineParams | null {
  const result = checkMachineParams(params, path);
  if (!result.ok) throw apiError("INVALID_MACHINE_PARAMS", result.message);
  if (!params) return null;
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== null && v !== undefined)) as MachineParams;
}

/**
 * The variables of a `text` argument, read as CKE reads set-variables' FILE (INVALID_MACHINE_PARAMS with the reason
 * when it cannot be); `having` and `notHaving` must then be absent, so that what is kept as the text is what applies.
 */
export function variablesFromText(text: string, having: unknown, notHaving: unknown): MachineQueryVariables {
  if ((having !== null && having !== undefined) || (notHaving !== null && notHaving !== undefined)) {
    throw apiError("INVALID_MACHINE_PARAMS", "give text, or having and notHaving, not both");
  }
  const read = readCkeQueryVariables(text);
  if (!read.ok) throw apiError("INVALID_MACHINE_PARAMS", `text: ${read.message}`);
  return read.variables;
}
