import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PacedDelivery, type Recipient } from "../../src/graphql/paced-delivery.js";

const turn = () => new Promise((resolve) => setImmediate(resolve));

function recipients(n: number): { list: Recipient<string>[]; got: string[][] } {
  const got = Array.from({ length: n }, () => [] as string[]);
  return { list: got.map((mine) => ({ push: (v: string) => void mine.push(v) })), got };
}

describe("PacedDelivery", () => {
  it("hands an event for at most perTurn recipients on at once", () => {
    const delivery = new PacedDelivery<string>(3);
    const { list, got } = recipients(3);
    delivery.deliver(list, "a");
    assert.deepEqual(got, [["a"], ["a"], ["a"]]);
  });

  it("hands a larger event on perTurn recipients a turn (no time to go on), and what comes after it behind it, in order", async () => {
    const delivery = new PacedDelivery<string>(2, 1000, 0);
    const many = recipients(5);
    const few = recipients(1);
    delivery.deliver(many.list, "big");
    delivery.deliver([...many.list, ...few.list], "next");
    delivery.deliver(few.list, "small");
    const handed = () => many.got.flat().length + few.got.flat().length;
    assert.equal(handed(), 2, "the first turn's share, at once");
    const perTurn: number[] = [];
    while (delivery.pending > 0) {
      const before = handed();
      await turn();
      perTurn.push(handed() - before);
    }
    assert.ok(
      perTurn.every((n) => n <= 2),
      `at most 2 a turn: ${perTurn.join(", ")}`,
    );
    assert.deepEqual(
      many.got,
      Array.from({ length: 5 }, () => ["big", "next"]),
    );
    assert.deepEqual(few.got, [["next", "small"]], "the small event waited behind the large ones");
  });

  it("goes on handing events on, perTurn recipients at a time, until the turn's time is spent; the publisher's turn hands one share", async () => {
    let clock = 0;
    // Every look at the clock finds a millisecond passed.
    const delivery = new PacedDelivery<string>(2, 1000, 3, () => clock++);
    const { list, got } = recipients(20);
    const handed = () => got.flat().length;
    delivery.deliver(list, "a");
    assert.equal(handed(), 2, "one share as it is published");
    await turn();
    assert.equal(handed(), 2 + 3 * 2, "then shares while less than 3 ms passed: three in the turn");
    while (delivery.pending > 0) await turn();
    assert.deepEqual(
      got,
      Array.from({ length: 20 }, () => ["a"]),
    );
  });

  it("keeps at most maxWaiting events waiting: the oldest is then handed on whole", () => {
    const delivery = new PacedDelivery<string>(1, 2);
    const { list, got } = recipients(3);
    for (const v of ["a", "b", "c", "d"]) delivery.deliver(list, v);
    assert.equal(delivery.pending, 2);
    assert.deepEqual(got, [
      ["a", "b"],
      ["a", "b"],
      ["a", "b"],
    ]);
  });
});
