import { variablesText } from "../domain/sabakan/cke-query-variables.js";
import type { MachineQueryVariables } from "../domain/sabakan/machine-params.js";

/**
 * Query variables as stored, with the text they were set from (`ckecli set-variables FILE` keeps the file's bytes,
 * and `get-variables` prints them); values stored before texts were kept have none.
 */
export interface StoredVariables extends MachineQueryVariables {
  readonly text?: string;
}

export function storedVariables(variables: MachineQueryVariables, text: string | undefined): StoredVariables {
  return text === undefined ? { having: variables.having, notHaving: variables.notHaving } : { having: variables.having, notHaving: variables.notHaving, text };
}

/** The variables of a stored value, without its text (no searchMachines variable). */
export function variablesOf(stored: StoredVariables | null): MachineQueryVariables | null {
  return stored === null ? null : { having: stored.having, notHaving: stored.notHaving };
}

/** The text a stored value was set from, else its variables as text. */
export function textOf(stored: StoredVariables | null): string | null {
  if (stored === null) return null;
  return stored.text ?? variablesText({ having: stored.having, notHaving: stored.notHaving });
}
