import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AnswerTurns } from "../../src/graphql/limits/answer-turns.js";

/** Turns the test lets pass one at a time: `next` waits for `pass()`. */
function manualTurns() {
  const waiting: Array<() => void> = [];
  return {
    next: () => new Promise<void>((resolve) => waiting.push(resolve)),
    pass: async () => {
      // The next turn is asked for once the one before it settled.
      for (let i = 0; i < 5; i++) await Promise.resolve();
      waiting.shift()?.();
      // Lets the promises chained on that turn settle.
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
  };
}

/** Which of `paced` hold their item now (a plain value, or a promise that settled). */
async function settledNow<T>(paced: ReadonlyArray<T | Promise<T>>): Promise<boolean[]> {
  const seen = paced.map((p) => !(p instanceof Promise));
  paced.forEach((p, i) => {
    if (p instanceof Promise)
      void p.then(
        () => (seen[i] = true),
        () => undefined,
      );
  });
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return seen;
}

describe("AnswerTurns (a long answer's items spread over turns of the event loop)", () => {
  for (const { name, perTurn, lists, plain } of [
    { name: "a list within the turn's share is handed over as it is", perTurn: 100, lists: [[10, 5]], plain: [true] },
    { name: "a list past the share is deferred from the first item past it", perTurn: 100, lists: [[10, 20]], plain: [false] },
    {
      name: "the shares of an answer's lists add up",
      perTurn: 100,
      lists: [
        [5, 10],
        [5, 10],
        [1, 10],
      ],
      plain: [true, true, false],
    },
  ] as const) {
    it(name, () => {
      const turns = new AnswerTurns(perTurn, manualTurns().next);
      const handed = lists.map(([items, bytes]) =>
        turns.pace(
          Array.from({ length: items }, (_, i) => i),
          bytes,
        ),
      );
      assert.deepEqual(
        handed.map((h) => h.every((item) => !(item instanceof Promise))),
        plain,
      );
    });
  }

  it("hands each later share to the next turn, keeping every item and its order", async () => {
    const manual = manualTurns();
    const turns = new AnswerTurns(30, manual.next);
    const paced = turns.pace(
      Array.from({ length: 8 }, (_, i) => `m${i}`),
      10,
    );
    assert.deepEqual(await settledNow(paced), [true, true, true, false, false, false, false, false]);
    await manual.pass();
    assert.deepEqual(await settledNow(paced), [true, true, true, true, true, true, false, false]);
    await manual.pass();
    assert.deepEqual(await Promise.all(paced), ["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"]);
    assert.equal(turns.laterTurns, 2);
  });

  it("leaves a deferred item unbuilt when halt throws (an answer already refused)", async () => {
    const manual = manualTurns();
    const turns = new AnswerTurns(10, manual.next);
    const refused = new Error("refused");
    const paced = turns.pace([1, 2], 10, () => {
      throw refused;
    });
    assert.equal(paced[0], 1);
    const second = paced[1] as Promise<number>;
    await manual.pass();
    await assert.rejects(second, refused);
  });
});
