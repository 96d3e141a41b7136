import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TurnQuota } from "../../src/support/turn-quota.js";
import { countTurns } from "../support/loop-turns.js";

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Gives `count` pieces of work to `quota` at once; returns the order they started in and how many started each turn. */
async function startAll(quota: TurnQuota, count: number): Promise<{ order: number[]; perTurn: number[] }> {
  // Counted from before the quota schedules anything: each turn's count moves on before the quota starts anything in it.
  const counter = countTurns();
  const order: number[] = [];
  const turns: number[] = [];
  for (let i = 0; i < count; i++)
    quota.inTurn(() => {
      order.push(i);
      turns.push(counter.turns);
    });
  while (order.length < count) await turn();
  counter.stop();
  const perTurn = Array.from({ length: Math.max(...turns) + 1 }, (_, t) => turns.filter((x) => x === t).length);
  return { order, perTurn };
}

describe("TurnQuota", () => {
  const cases = [
    { name: "fewer than a turn's quota start at once", perTurn: 8, count: 5, expected: [5] },
    { name: "exactly a turn's quota start at once", perTurn: 8, count: 8, expected: [8] },
    { name: "a burst starts perTurn a turn, the rest in the next turns", perTurn: 8, count: 20, expected: [8, 8, 4] },
    { name: "one a turn", perTurn: 1, count: 3, expected: [1, 1, 1] },
  ];
  for (const c of cases) {
    it(`${c.name} (${c.count} given, ${c.perTurn} a turn)`, async () => {
      const { order, perTurn } = await startAll(new TurnQuota(c.perTurn), c.count);
      assert.deepEqual(perTurn, c.expected);
      assert.deepEqual(
        order,
        Array.from({ length: c.count }, (_, i) => i),
        "in the order given",
      );
    });
  }

  it("a turn's quota is counted afresh in the next turn, and work given while some waits waits behind it", async () => {
    const quota = new TurnQuota(2);
    const started: string[] = [];
    for (const name of ["a", "b", "c"]) quota.inTurn(() => started.push(name));
    assert.deepEqual(started, ["a", "b"]);
    await turn();
    assert.deepEqual(started, ["a", "b", "c"]);
    quota.inTurn(() => started.push("d"));
    assert.deepEqual(started, ["a", "b", "c", "d"], "one of this turn's two starts was left");
    quota.inTurn(() => started.push("e"));
    assert.equal(quota.pending, 1);
    await turn();
    assert.deepEqual(started, ["a", "b", "c", "d", "e"]);
    await turn();
    quota.inTurn(() => started.push("f"));
    quota.inTurn(() => started.push("g"));
    assert.deepEqual(started, ["a", "b", "c", "d", "e", "f", "g"], "an idle quota starts a whole turn's worth at once");
  });

  it("turn() resolves in the turn its quota allows", async () => {
    const quota = new TurnQuota(1);
    const resolved: number[] = [];
    const all = [0, 1, 2].map((i) => quota.turn().then(() => resolved.push(i)));
    await Promise.resolve();
    assert.deepEqual(resolved, [0]);
    await turn();
    assert.deepEqual(resolved, [0, 1]);
    await Promise.all(all);
    assert.deepEqual(resolved, [0, 1, 2]);
  });

  it("refuses a quota that is not a whole number of at least 1", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) assert.throws(() => new TurnQuota(bad), /at least 1/);
  });
});
