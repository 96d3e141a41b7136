import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NOW } from "../../support/fixtures.js";
import { ACTOR, commitsOf, marker, newEntry, outcome, type StoreHarness } from "./store-harness.js";

/** Writes that must not happen: a dequeue's decide asked about an entry that is gone, half an enqueue. */
export function refusalCases(h: StoreHarness): void {
  describe("writes that must not happen", () => {
    it("does not ask a dequeue's decide about an entry that is gone", async () => {
      const store = await h.open();
      const { entry } = await store.entries.add(newEntry("10.0.0.1"), "added", NOW, ACTOR);
      await store.entries.dequeue(entry.index, () => "first", NOW, ACTOR);
      let asked = false;
      assert.equal(await store.entries.dequeue(entry.index, () => ((asked = true), "second"), NOW, ACTOR), null);
      assert.equal(asked, false);
      assert.deepEqual(
        (await store.entries.history(entry.index)).map((r) => r.kind),
        ["created", "dequeued"],
      );
    });

    it("announces nothing for a change that writes, then fails, and keeps what was stored", async () => {
      const store = await h.open();
      const { entry } = await store.entries.add(newEntry("10.0.0.1"), "added", NOW, ACTOR);
      const commits = commitsOf(store);
      await assert.rejects(
        store.entries.change(
          entry.index,
          (e) =>
            e && [
              { entry: { ...e, status: "failed" }, kind: "transition", reason: "x" },
              { entry: { ...e, index: 99 }, kind: "transition", reason: "x" },
            ],
          NOW,
          ACTOR,
        ),
        /cannot write entry 99/,
      );
      const after = await marker(store, "after");
      assert.deepEqual(commits, [after]);
      assert.deepEqual(store.entries.list(), [entry]);
      assert.equal((await store.entries.history(entry.index)).length, 1);
    });

    // JSON would write NaN as null, which the read schema refuses: the core refuses to encode it, so nothing lands.
    it("lands neither the entries nor the outcome of an enqueue whose outcome cannot be stored", async () => {
      const store = await h.open();
      const failing = store.enqueue(
        () => ({ add: [{ entry: newEntry("10.0.0.2"), reason: "x" }], outcome: (enqueued) => ({ ...outcome(1), enqueued, machinesSeen: Number.NaN }) }),
        NOW,
        ACTOR,
      );
      await assert.rejects(failing);
      assert.deepEqual(store.entries.list(), []);
      assert.deepEqual(await store.outcomes.last(null), []);
      const reopened = await h.reopen();
      assert.deepEqual([reopened.entries.list(), await reopened.outcomes.last(null)], [[], []]);
    });
  });
}
