import { execute, print, type DocumentNode, type ExecutionArgs, type ExecutionResult } from "graphql";

type PromiseOrValue<T> = T | Promise<T>;

const isPromise = <T>(value: PromiseOrValue<T>): value is Promise<T> => typeof (value as { then?: unknown }).then === "function";

const printed = new WeakMap<DocumentNode, string>();
// Per event payload (the very object pubsub hands to every subscriber), the results by document and variables.
const results = new WeakMap<object, Map<string, PromiseOrValue<ExecutionResult>>>();

/**
 * What tells executions of `args` apart: its document's text, with its operation name and variables when it has them
 * (each of those keys is then a string of its own). Without them the key is the text printed once per parsed
 * document, which every subscription of that document shares: 10,000 subscriptions held a 440-byte key each, and each
 * event's lookup compared the two strings byte by byte.
 */
export function resultKey(args: ExecutionArgs): string {
  let text = printed.get(args.document);
  if (text === undefined) {
    text = print(args.document);
    printed.set(args.document, text);
  }
  const variables = JSON.stringify(args.variableValues ?? {});
  if (!args.operationName && variables === "{}") return text;
  return `${args.operationName ?? ""}\u0000${text}\u0000${variables}`;
}

/**
 * The result of the subscription `args` for each event payload, executed once per payload for every subscription
 * with the same document and variables (an event's result depends only on the event and the document, not on who
 * subscribed): fan-out to many identical subscriptions costs one execution. A result that waits (a field that
 * loads) is a promise to whoever asks before it settles, and the value itself to whoever asks after: the
 * subscriptions handed the event in later turns (see PacedDelivery) send it at once, instead of each waiting on a
 * promise of its own.
 */
export function sharedResults(args: ExecutionArgs): (payload: unknown) => PromiseOrValue<ExecutionResult> {
  const key = resultKey(args);
  return (payload) => {
    if (payload === null || typeof payload !== "object") return execute({ ...args, rootValue: payload });
    let byKey = results.get(payload);
    if (!byKey) {
      byKey = new Map();
      results.set(payload, byKey);
    }
    const known = byKey.get(key);
    if (known) return known;
    const result = execute({ ...args, rootValue: payload });
    byKey.set(key, result);
    if (isPromise(result)) {
      const settled = byKey;
      // A rejection is left to the subscriptions that wait on it (each ends with it).
      result.then(
        (value) => {
          if (settled.get(key) === result) settled.set(key, value);
        },
        () => undefined,
      );
    }
    return result;
  };
}
