import type { ApolloServerPlugin } from "../apollo-server.js";
import type { FormattedExecutionResult, GraphQLError } from "graphql";
import { limitError } from "../errors.js";
import { TURN_BYTES } from "./answer-turns.js";

// Strings that JSON writes as they are, one byte a character: no quote, backslash, control or non-ASCII character.
const NEEDS_CARE = /["\\\u0000-\u001f\u007f-\uffff]/;

/**
 * The length in bytes of `value` as JSON.stringify writes it (UTF-8; `toJSON` honoured, undefined and functions
 * left out of objects), counted without writing it, and only until it passes `max`: a result above `max` is not
 * the whole length. A walk of the value, about as fast as serialising it, without the string.
 */
export function jsonBytesUpTo(value: unknown, max: number): number {
  const counter = { total: 0, max };
  addValue(counter, value);
  return counter.total;
}

interface Counter {
  total: number;
  readonly max: number;
}

function stringBytes(s: string): number {
  return NEEDS_CARE.test(s) ? Buffer.byteLength(JSON.stringify(s)) : s.length + 2;
}

// Field names and aliases repeat in every item of a list: their lengths are kept, a bounded number of them.
const keyLengths = new Map<string, number>();
const KEPT_KEYS = 10_000;

function keyBytes(key: string): number {
  let bytes = keyLengths.get(key);
  if (bytes === undefined) {
    bytes = stringBytes(key);
    if (keyLengths.size >= KEPT_KEYS) keyLengths.clear();
    if (key.length <= 64) keyLengths.set(key, bytes);
  }
  return bytes;
}

/** Adds the JSON length of `v`; true once the total passed the counter's max (the walk stops there). */
function addValue(counter: Counter, value: unknown): boolean {
  const v = value;
  if (typeof v === "string") counter.total += stringBytes(v);
  else if (typeof v === "number") counter.total += Number.isFinite(v) ? String(v).length : 4;
  else if (typeof v === "boolean") counter.total += v ? 4 : 5;
  else if (v === null) counter.total += 4;
  else if (typeof v === "bigint") throw new TypeError("a bigint cannot be serialised as JSON");
  else if (typeof v === "object") {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return addValue(counter, toJSON.call(v));
    if (Array.isArray(v)) {
      counter.total += 1 + Math.max(v.length, 1);
      for (const item of v) {
        // An array writes undefined and functions as null.
        if (item === undefined || typeof item === "function" || typeof item === "symbol") counter.total += 4;
        else if (addValue(counter, item)) return true;
      }
    } else {
      counter.total += 2;
      let first = true;
      const record = v as Record<string, unknown>;
      // Answers are plain or null-prototype objects, whose enumerable keys are their own, as JSON.stringify writes them.
      for (const key in record) {
        const item = record[key];
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        counter.total += (first ? 1 : 2) + keyBytes(key);
        first = false;
        if (addValue(counter, item)) return true;
      }
    }
  }
  return counter.total > counter.max;
}

/** The error of an answer larger than `maxBytes`. */
export function oversizedError(maxBytes: number): GraphQLError {
  return limitError(
    "LIMIT_EXCEEDED",
    "max_response_bytes",
    `the answer is larger than ${maxBytes} bytes (limits.max_response_bytes); ask for fewer items or fields`,
  );
}

/** The answer sent instead of one larger than `maxBytes`: no data, an error naming the limit. */
export function oversizedAnswer(maxBytes: number): FormattedExecutionResult {
  return { errors: [oversizedError(maxBytes).toJSON()] };
}

/**
 * Replaces an HTTP answer larger than `maxBytes` with {@link oversizedAnswer}: one whose AnswerBudget was spent while
 * it was built (its long lists were never built), else one measured larger before Apollo serialises it (Apollo
 * writes the whole answer into one string after `willSendResponse`), so no string of an oversized answer is made.
 */
export function responseSizePlugin<Context extends { readonly answerBudget?: { readonly exceeded: boolean; readonly spent: number } }>(
  maxBytes: number,
  nextTurn: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve)),
): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          if (response.body.kind !== "single") return;
          // A long answer is measured in a turn of the event loop of its own, and serialised in the next: its last
          // items, its measure and its string (tens of milliseconds each at 1 MB) held /health all in one go.
          const long = (contextValue.answerBudget?.spent ?? 0) > TURN_BYTES;
          if (long) await nextTurn();
          if (contextValue.answerBudget?.exceeded || jsonBytesUpTo(response.body.singleResult, maxBytes) > maxBytes)
            response.body.singleResult = oversizedAnswer(maxBytes);
          if (long) await nextTurn();
        },
      };
    },
  };
}

/**
 * The same bound for subscription events, for graphql-ws's `onNext`: the oversized answer in place of an event
 * larger than `maxBytes`, else undefined (the event goes as it is). Subscribers of one shared execution receive the
 * same result object, which is measured once.
 */
export function eventSizeBound(maxBytes: number): (result: object) => FormattedExecutionResult | undefined {
  const verdicts = new WeakMap<object, boolean>();
  return (result) => {
    let oversized = verdicts.get(result);
    if (oversized === undefined) {
      oversized = jsonBytesUpTo(result, maxBytes) > maxBytes;
      verdicts.set(result, oversized);
    }
    return oversized ? oversizedAnswer(maxBytes) : undefined;
  };
}
