import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PacedDelivery, type Recipient } from "../../src/graphql/paced-delivery.js";

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** `n` recipients: what each was handed, "behind" once it was told it fell behind. */
function recipients(n: number): { list: Recipient<string>[]; got: string[][] } {
  const got = Array.from({ length: n }, () => [] as string[]);
  return { list: got.map((mine) => ({ push: (v: string) => void mine.push(v), fellBehind: () => void mine.push("behind") })), got };
}

describe("PacedDelivery", () => {
  it("hands an event for at most perTurn recipients on at once", () => {
    const delivery = new PacedDelivery<string>(3);
    const { list, got } = recipients(3);
    delivery.deliver(list, "a");
    assert.deepEqual(got, [["a"], ["a"], ["a"]]);
  });

  it("hands a larger event on perTurn recipients a turn, and what comes after it behind it, in order", async () => {
    const delivery = new PacedDelivery<string>(2);
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

  const overflows: Array<{ name: string; perTurn: number; maxWaiting: number; events: string[]; got: string[][]; pending: number }> = [
    {
      name: "the recipients the oldest event had not reached fell behind; the one it had reached gets the rest",
      perTurn: 1,
      maxWaiting: 2,
      events: ["a", "b", "c"],
      got: [["a"], ["behind"], ["behind"]],
      pending: 2,
    },
    {
      name: "past that, each new event tells the recipients the oldest had not reached (the pubsub ends them at the first)",
      perTurn: 1,
      maxWaiting: 2,
      events: ["a", "b", "c", "d"],
      got: [
        ["a", "behind"],
        ["behind", "behind"],
        ["behind", "behind"],
      ],
      pending: 2,
    },
    {
      name: "nobody falls behind while the backlog stays within maxWaiting",
      perTurn: 2,
      maxWaiting: 3,
      events: ["a", "b", "c"],
      got: [["a"], ["a"], []],
      pending: 3,
    },
  ];
  for (const overflow of overflows) {
    it(`keeps at most maxWaiting events waiting: ${overflow.name}`, () => {
      const delivery = new PacedDelivery<string>(overflow.perTurn, overflow.maxWaiting);
      const { list, got } = recipients(3);
      for (const v of overflow.events) delivery.deliver(list, v);
      assert.deepEqual(got, overflow.got);
      assert.equal(delivery.pending, overflow.pending);
    });
  }
});
