import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { graphql, buildSchema } from "graphql";
import { inSlices } from "../../src/graphql/list-slices.js";

describe("inSlices: a long list completed a slice a turn of the event loop", () => {
  const cases = [
    { name: "a short list: as it is", length: 3, size: 5, promises: 0 },
    { name: "exactly one slice", length: 5, size: 5, promises: 0 },
    { name: "past the first slice: the rest as promises", length: 12, size: 5, promises: 7 },
  ];
  for (const c of cases) {
    it(`${c.name}: the same items in order`, async () => {
      const items = Array.from({ length: c.length }, (_, i) => ({ i }));
      const sliced = inSlices(items, c.size);
      assert.equal(sliced.filter((v) => v instanceof Promise).length, c.promises);
      assert.deepEqual(await Promise.all(sliced), items);
    });
  }

  it("graphql-js answers the same list, and other work runs between the slices", async () => {
    const schema = buildSchema("type Query { items: [Item!]! } type Item { n: Int! }");
    const items = Array.from({ length: 2_000 }, (_, n) => ({ n }));
    // What runs between slices: a callback of the next turn, scheduled again each time it runs.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const result = await graphql({ schema, source: "{ items { n } }", rootValue: { items: () => inSlices(items, 500) } });
    ticking = false;
    assert.deepEqual(JSON.parse(JSON.stringify(result)), { data: { items } });
    assert.ok(turns >= 3, `other work ran ${turns} times while 4 slices completed`);
  });
});
