import type { GraphQLError } from "graphql";
import { limitError } from "../errors.js";

/**
 * Whether `value` (parsed JSON) nests objects and arrays more than `max` deep: a scalar is 0 deep, `{}` and `[]`
 * 1, `{"a": [1]}` 2. Walked with a stack of its own, never by recursion, and only as far as `max`: a value nested
 * 400,000 deep (which JSON.parse reads, iteratively) costs no more than its first `max` levels and its width.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value: v, depth } = next;
    if (typeof v !== "object" || v === null) continue;
    if (depth + 1 > max) return true;
    for (const item of Array.isArray(v) ? v : Object.values(v)) if (typeof item === "object" && item !== null) stack.push({ value: item, depth: depth + 1 });
  }
  return false;
}

/**
 * The refusal of a request one of whose members (`variables`, `extensions`, any other: `request` is an HTTP body, a
 * GET request's parameters or a graphql-ws subscribe payload, as parsed) nests more than `max` deep, or null; a
 * body that is no object (a batch) is weighed whole. Checked before anything walks the request: the cost estimate's
 * cache key and the shared subscriptions' key serialise the variables with JSON.stringify, which recurses (a deep
 * enough value overflows the stack), and graphql-js coerces them by recursion.
 */
export function variableDepthError(request: unknown, max: number): GraphQLError | null {
  const parts = typeof request === "object" && request !== null && !Array.isArray(request) ? Object.entries(request) : [["body", request] as const];
  for (const [name, value] of parts) {
    if (nestedDeeperThan(value, max))
      return limitError("LIMIT_EXCEEDED", "max_variable_depth", `a value in the request's ${name} is nested more than ${max} deep (limits.max_variable_depth)`);
  }
  return null;
}
