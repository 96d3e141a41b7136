import { createSourceEventStream, execute, print, type DocumentNode, type ExecutionArgs, type ExecutionResult } from "graphql";

const printed = new WeakMap<DocumentNode, string>();
// Per event payload (the very object pubsub hands to every subscriber), the results by document and variables.
const results = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

function keyOf(args: ExecutionArgs): string {
  let text = printed.get(args.document);
  if (text === undefined) {
    text = print(args.document);
    printed.set(args.document, text);
  }
  return `${args.operationName ?? ""}\u0000${text}\u0000${JSON.stringify(args.variableValues ?? {})}`;
}

/**
 * graphql-js's `subscribe`, except that subscribers with the same document and variables share one execution per
 * event instead of executing it once each: fan-out to many identical subscriptions costs one execution and N sends.
 * Sound because subscription results here depend only on the event and the document, not on who subscribed.
 */
export async function sharedSubscribe(args: ExecutionArgs): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
  const stream = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in stream)) return stream as ExecutionResult;
  const source = stream as AsyncIterableIterator<unknown>;
  const key = keyOf(args);
  async function* mapped(): AsyncGenerator<ExecutionResult> {
    try {
      for await (const payload of source) {
        if (payload === null || typeof payload !== "object") {
          yield await execute({ ...args, rootValue: payload });
          continue;
        }
        let byKey = results.get(payload);
        if (!byKey) {
          byKey = new Map();
          results.set(payload, byKey);
        }
        let result = byKey.get(key);
        if (!result) {
          result = Promise.resolve(execute({ ...args, rootValue: payload }));
          byKey.set(key, result);
        }
        yield await result;
      }
    } finally {
      await source.return?.();
    }
  }
  return mapped();
}
