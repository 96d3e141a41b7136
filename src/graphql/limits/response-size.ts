import type { ApolloServerPlugin } from "@apollo/server";
import type { FormattedExecutionResult } from "graphql";
import { limitError } from "../errors.js";

// Strings that JSON writes as they are, one byte a character: no quote, backslash, control or non-ASCII character.
const NEEDS_CARE = /["\\\u0000-\u001f\u007f-\uffff]/;

/**
 * The length in bytes of `value` as JSON.stringify writes it (UTF-8; `toJSON` honoured, undefined and functions
 * left out of objects), counted without writing it, and only until it passes `max`: a result above `max` is not
 * the whole length. Costs a walk of the value, far less than serialising it.
 */
export function jsonBytesUpTo(value: unknown, max: number): number {
  let total = 0;
  const add = (v: unknown): boolean => {
    if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function") v = (v as { toJSON: () => unknown }).toJSON();
    if (v === null) total += 4;
    else if (typeof v === "string") total += NEEDS_CARE.test(v) ? Buffer.byteLength(JSON.stringify(v)) : v.length + 2;
    else if (typeof v === "number") total += Number.isFinite(v) ? String(v).length : 4;
    else if (typeof v === "boolean") total += v ? 4 : 5;
    else if (typeof v === "bigint") throw new TypeError("a bigint cannot be serialised as JSON");
    else if (Array.isArray(v)) {
      total += 1 + Math.max(v.length, 1);
      for (const item of v) {
        // An array writes undefined and functions as null.
        if (item === undefined || typeof item === "function" || typeof item === "symbol") total += 4;
        else if (add(item)) return true;
      }
    } else if (typeof v === "object") {
      total += 2;
      let first = true;
      for (const [key, item] of Object.entries(v as Record<string, unknown>)) {
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        total += (first ? 0 : 1) + (NEEDS_CARE.test(key) ? Buffer.byteLength(JSON.stringify(key)) : key.length + 2) + 1;
        first = false;
        if (add(item)) return true;
      }
    }
    return total > max;
  };
  add(value);
  return total;
}

/** The answer sent instead of one larger than `maxBytes`: no data, an error naming the limit. */
export function oversizedAnswer(maxBytes: number): FormattedExecutionResult {
  const error = limitError("LIMIT_EXCEEDED", "max_response_bytes", `the answer is larger than ${maxBytes} bytes (limits.max_response_bytes); ask for fewer items or fields`);
  return { errors: [error.toJSON()] };
}

/**
 * Replaces an HTTP answer larger than `maxBytes` with {@link oversizedAnswer}, measured before Apollo serialises it
 * (Apollo writes the whole answer into one string after `willSendResponse`), so no string of the oversized answer
 * is ever made.
 */
export function responseSizePlugin<Context extends object>(maxBytes: number): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== "single") return;
          if (jsonBytesUpTo(response.body.singleResult, maxBytes) > maxBytes) response.body.singleResult = oversizedAnswer(maxBytes);
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
