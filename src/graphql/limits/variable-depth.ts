import type { GraphQLError } from "graphql";
import { limitError } from "../errors.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether the JSON text `json` nests objects and arrays more than `max` deep (`3` is 0 deep, `{}` 1, `{"a":[1]}` 2),
 * read from its text before it is parsed: brackets inside strings do not count. One pass over the characters (or
 * the bytes of a UTF-8 buffer: every character these compare with is ASCII, and no byte of a multi-byte character
 * is), stopping at the first level past `max`. V8 parses JSON without recursion, but 800 KB of arrays 400,000 deep
 * take it a quarter of a second, and JSON.stringify and graphql-js's coercion recurse through whatever it built;
 * this refuses such a request for the cost of reading it. Malformed text is left to the parser that follows.
 */
export function jsonNestedDeeperThan(json: string | Uint8Array, max: number): boolean {
  const text = typeof json === "string";
  const length = json.length;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < length; i++) {
    const c = text ? (json as string).charCodeAt(i) : (json as Uint8Array)[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

/**
 * The refusal of a request whose JSON text nests a value more than `max` deep below `levels` of its own (the body
 * object is 1: its `variables` may nest `max` more), or null. Checked before the text is parsed.
 */
export function variableDepthError(json: string | Uint8Array, max: number, levels: number): GraphQLError | null {
  if (!jsonNestedDeeperThan(json, max + levels)) return null;
  return limitError("LIMIT_EXCEEDED", "max_variable_depth", `a value in the request is nested more than ${max} deep (limits.max_variable_depth)`);
}
