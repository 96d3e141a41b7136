import { checkMachineParams, type MachineParams } from "../../domain/machine-params.js";
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
