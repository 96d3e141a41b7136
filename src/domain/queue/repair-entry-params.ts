import type { RepairEntry, RepairStatus } from "./repair-entry.js";

/** Filters for entries; a null or empty list is no constraint. */
export interface RepairEntryParams {
  readonly statuses?: readonly RepairStatus[] | null;
  readonly addresses?: readonly string[] | null;
  readonly machineTypes?: readonly string[] | null;
  readonly operations?: readonly string[] | null;
}

type Field = "status" | "address" | "machineType" | "operation";
const FIELDS: ReadonlyArray<readonly [keyof RepairEntryParams, Field]> = [
  ["statuses", "status"],
  ["addresses", "address"],
  ["machineTypes", "machineType"],
  ["operations", "operation"],
];

/**
 * Sabakan's `searchMachines` rule applied to repair entries: the entry matches when every non-empty list of
 * `having` contains its value and no non-empty list of `notHaving` does. Values within a list are OR'd, fields
 * are AND'd, and null or `[]` is no constraint. Addresses are compared in canonical form (see `parseAddress`).
 */
export function matchesRepairEntryParams(
  entry: RepairEntry,
  having: RepairEntryParams | null | undefined,
  notHaving: RepairEntryParams | null | undefined,
): boolean {
  for (const [param, field] of FIELDS) {
    const value = entry[field];
    const wanted = having?.[param];
    if (wanted && wanted.length > 0 && !(wanted as readonly string[]).includes(value)) return false;
    const unwanted = notHaving?.[param];
    if (unwanted && unwanted.length > 0 && (unwanted as readonly string[]).includes(value)) return false;
  }
  return true;
}
