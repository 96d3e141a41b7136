import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ExecutionResult } from "graphql";
import { settlement, type Settled } from "../../src/graphql/result-waiters.js";

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A result that settles when told, and `n` waiters on it that record the order they were told in. */
function waiting(n: number) {
  let settle!: (r: ExecutionResult) => void;
  let fail!: (e: Error) => void;
  const promise = new Promise<ExecutionResult>((resolve, reject) => ((settle = resolve), (fail = reject)));
  const told: Array<[number, Settled]> = [];
  for (let i = 0; i < n; i++) settlement(promise).push({ push: (s) => void told.push([i, s]) });
  return { promise, settle, fail, told };
}

describe("settlement (the subscriptions waiting on one shared result)", () => {
  it("tells them a share at a time: 500 as it settles, the rest in the turns after, in the order they asked", async () => {
    const { promise, settle, told } = waiting(1200);
    settle({ data: { x: 1 } });
    await promise;
    assert.equal(told.length, 500, "as it settled");
    while (told.length < 1200) await turn();
    assert.deepEqual(
      told.map(([i]) => i),
      Array.from({ length: 1200 }, (_, i) => i),
    );
    assert.ok(told.every(([, s]) => s.ok && (s.value.data as { x: number }).x === 1 && s.promise === promise));
  });

  it("tells them a rejection as its error", async () => {
    const { promise, fail, told } = waiting(2);
    fail(new Error("join failed"));
    await promise.catch(() => undefined);
    assert.deepEqual(
      told.map(([i, s]) => [i, s.ok ? "ok" : s.err.message]),
      [
        [0, "join failed"],
        [1, "join failed"],
      ],
    );
  });

  it("tells one that asks after it settled through a reaction of its own", async () => {
    const { promise, settle } = waiting(1);
    settle({ data: { x: 2 } });
    await promise;
    let late: Settled | null = null;
    settlement(promise).push({ push: (s) => void (late = s) });
    await promise;
    await Promise.resolve();
    assert.equal((late as Settled | null)?.ok, true);
  });
});
