import type { MachineParams, MachineQueryVariables, MachineState } from "./machine-params.js";
import { firstControlCharacter } from "../shared/untrusted-text.js";

/** The longest variables text kept: sabakan's MachineParams are a few lists; anything near this is not one. */
export const MAX_VARIABLES_TEXT_BYTES = 64 * 1024;

/** Variables read from a text, with the path of every key ignored; or why the text is refused. */
export type CkeVariablesResult =
  { readonly ok: true; readonly variables: MachineQueryVariables; readonly ignored: readonly string[] } | { readonly ok: false; readonly message: string };

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);
const given = (v: unknown) => v !== undefined && v !== null;

class Refused extends Error {}

/** Go's encoding/json matches a key to a field without regard to case (its fold also maps ſ to s and K to k). */
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase() || a.toUpperCase() === b.toUpperCase();

/**
 * The members of `value` that name one of `fields` (by Go's case-insensitive match), keyed by the field; every
 * other key is added to `ignored` with its path. Two keys for one field are refused: Go would merge them in an order
 * JSON.parse does not keep.
 */
function fieldsOf<F extends string>(value: Raw, fields: readonly F[], path: string, ignored: string[]): Partial<Record<F, unknown>> {
  const found: Partial<Record<F, unknown>> = {};
  const keyOf: Partial<Record<F, string>> = {};
  for (const [key, member] of Object.entries(value)) {
    const field = fields.find((f) => f === key) ?? fields.find((f) => sameName(f, key));
    const at = path === "" ? key : `${path}.${key}`;
    if (field === undefined) {
      ignored.push(at);
      continue;
    }
    const earlier = keyOf[field];
    if (earlier !== undefined)
      throw new Refused(`${at}: ${JSON.stringify(earlier)} already gives ${field} (keys match fields without regard to case, as in CKE)`);
    keyOf[field] = key;
    found[field] = member;
  }
  return found;
}

function listOf<T>(value: unknown, path: string, item: (v: unknown, at: string) => T): T[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new Refused(`${path}: must be a list, got ${JSON.stringify(value)}`);
  return value.map((v, i) => item(v, `${path}[${i}]`));
}

function stringAt(value: unknown, at: string): string {
  if (typeof value !== "string") throw new Refused(`${at}: must be a string, got ${JSON.stringify(value)}`);
  return value;
}

function integerAt(value: unknown, at: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw new Refused(`${at}: must be an integer, got ${JSON.stringify(value)}`);
  return value;
}

function paramsAt(value: unknown, path: string, ignored: string[]): MachineParams | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw new Refused(`${path}: must be an object (sabakan's MachineParams), got ${JSON.stringify(value)}`);
  const f = fieldsOf(value, ["labels", "racks", "roles", "states", "minDaysBeforeRetire"], path, ignored);
  const labels = listOf(f.labels, `${path}.labels`, (label, at) => {
    if (!isObject(label)) throw new Refused(`${at}: must be an object with name and value, got ${JSON.stringify(label)}`);
    const l = fieldsOf(label, ["name", "value"], at, ignored);
    // A missing name or value is Go's zero value, "" (a missing name is then refused by checkMachineParams).
    return { name: l.name === undefined ? "" : stringAt(l.name, `${at}.name`), value: l.value === undefined ? "" : stringAt(l.value, `${at}.value`) };
  });
  const params: MachineParams = {
    ...(labels !== null && { labels }),
    ...(given(f.racks) && { racks: listOf(f.racks, `${path}.racks`, integerAt) as number[] }),
    ...(given(f.roles) && { roles: listOf(f.roles, `${path}.roles`, stringAt) as string[] }),
    ...(given(f.states) && { states: listOf(f.states, `${path}.states`, stringAt) as MachineState[] }),
    ...(given(f.minDaysBeforeRetire) && { minDaysBeforeRetire: integerAt(f.minDaysBeforeRetire, `${path}.minDaysBeforeRetire`) }),
  };
  return params;
}

/**
 * Reads the JSON text of `ckecli auto-repair set-variables FILE` (or `sabakan set-variables`) as CKE reads it
 * (encoding/json into sabakan.QueryVariables): `having` and `notHaving`, each null or sabakan's MachineParams, keys
 * matched without regard to case, every other key ignored and named in `ignored`, a value of the wrong type refused.
 * Stricter than CKE only where its reading would be unsafe: a text that is not an object (CKE takes `null` as no
 * variables, a search of every machine), two keys for one field, and characters a terminal acts on (the text is
 * printed back as it is). States and value ranges are checkMachineParams'.
 */
export function readCkeQueryVariables(text: string): CkeVariablesResult {
  if (new TextEncoder().encode(text).length > MAX_VARIABLES_TEXT_BYTES) {
    return { ok: false, message: `larger than ${MAX_VARIABLES_TEXT_BYTES} bytes; sabakan's MachineParams are a few short lists` };
  }
  const control = firstControlCharacter(text);
  if (control !== null) {
    const code = control.charCodeAt(0).toString(16).padStart(4, "0");
    return {
      ok: false,
      message: `holds the control character U+${code.toUpperCase()}, which a terminal would act on when get-variables prints the text; write it as \\u${code}`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `not valid JSON: ${(err as Error).message}` };
  }
  if (!isObject(value)) {
    return {
      ok: false,
      message: `must be a JSON object with "having" and/or "notHaving" (anything else would search every machine), got ${Array.isArray(value) ? "a list" : JSON.stringify(value)}`,
    };
  }
  const ignored: string[] = [];
  try {
    const f = fieldsOf(value, ["having", "notHaving"], "", ignored);
    const variables = { having: paramsAt(f.having, "having", ignored), notHaving: paramsAt(f.notHaving, "notHaving", ignored) };
    return { ok: true, variables, ignored };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, message: err.message };
    throw err;
  }
}

/**
 * The text of variables set from GraphQL fields rather than a text: JSON with 4-space indentation (ckecli's
 * layout), null members left out, and a final newline, so it feeds back to `set-variables` as it is.
 */
export function variablesText(variables: MachineQueryVariables): string {
  return `${JSON.stringify(variables, (_, v: unknown) => (v === null ? undefined : v), 4)}\n`;
}
