import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NOW } from "../../support/fixtures.js";
import { ACTOR, newEntry, type StoreHarness } from "./store-harness.js";

const SECOND = 1000;

/** The bounded read of a range of entries' histories that repair analytics make. */
export function timelineCases(h: StoreHarness): void {
  describe("history timelines", () => {
    it("reads the histories of an index range in order, cut at the limit before the index it could not read whole", async () => {
      const store = await h.open();
      for (const address of ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]) await store.entries.add(newEntry(address), "test", NOW, ACTOR);
      for (const index of [2, 3]) {
        await store.entries.change(
          index,
          (e) => e && [{ entry: { ...e, status: "processing", stepStatus: "draining" }, kind: "transition", reason: "drain" }],
          NOW + index * SECOND,
          "kintsugi",
        );
      }
      const read = await store.entries.timelines(2, 3, 100);
      assert.equal(read.completeThrough, 3);
      assert.deepEqual([...read.timelines.keys()], [2, 3], "entries 1 and 4 are outside the range");
      assert.deepEqual(read.timelines.get(2), [
        { time: NOW, status: "queued", step: 0, stepStatus: "waiting" },
        { time: NOW + 2 * SECOND, status: "processing", step: 0, stepStatus: "draining" },
      ]);
      const cut = await store.entries.timelines(1, 4, 4);
      assert.deepEqual([...cut.timelines.keys()], [1, 2], "entry 3's second record is past the limit, so entry 3 is left out");
      assert.equal(cut.completeThrough, 2);
      assert.deepEqual([...(await store.entries.timelines(10, 20, 100)).timelines.keys()], [], "no history: nothing");
    });
  });
}
