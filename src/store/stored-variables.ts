import { variablesText } from "../domain/sabakan/cke-query-variables.js";
import type { MachineQueryVariables } from "../domain/sabakan/machine-params.js";

/**
 * Query variables as both backends store them: the variables, and the text they were read from when they were set
 * from one (`ckecli set-variables FILE` keeps the file's bytes, and `get-variables` prints them). Values stored
 * before texts were kept have none.
 */
export interface StoredVariables extends MachineQueryVariables {
  readonly text?: string;
}

/** What is stored for `variables` set from `text` (or from GraphQL fields, without one). */
export function storedVariables(variables: MachineQueryVariables, text: string | undefined): StoredVariables {
  return text === undefined ? { having: variables.having, notHaving: variables.notHaving } : { having: variables.having, notHaving: variables.notHaving, text };
}

/** The variables of a stored value, without its text (which is no searchMachines variable); null when none is stored. */
export function variablesOf(stored: StoredVariables | null): MachineQueryVariables | null {
  return stored === null ? null : { having: stored.having, notHaving: stored.notHaving };
}

/** The text of a stored value: the one it was set from, else its variables as text; null when none is stored. */
export function textOf(stored: StoredVariables | null): string | null {
  if (stored === null) return null;
  return stored.text ?? variablesText({ having: stored.having, notHaving: stored.notHaving });
}
