import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KintsugiStore, RepairChange } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { commitsOf, newEntry, type StoreHarness } from "./store-harness.js";

/** What a change says of itself: [previous status, step status, deleted, back-off count] (null: new), then its record's kind and actor. */
const said = (c: RepairChange) => [
  c.previous && [c.previous.status, c.previous.stepStatus, c.previous.deleted, c.previous.drainBackoffCount],
  c.record.kind,
  c.record.actor,
];

// One entry's life, each write by another actor: every change names the entry as it was just before it.
const STEPS: ReadonlyArray<{ name: string; write: (s: KintsugiStore) => Promise<RepairChange[]>; said: ReadonlyArray<readonly unknown[]> }> = [
  {
    name: "added",
    write: async (s) => [await s.entries.add(newEntry("10.0.0.1", { drainBackoffCount: 1, drainBackoffExpire: NOW + 5 }), "added", NOW, "alice")],
    said: [[null, "created", "alice"]],
  },
  {
    name: "two writes in one change",
    write: (s) =>
      s.entries.change(
        1,
        (e) =>
          e && [
            { entry: { ...e, status: "processing", stepStatus: "draining" }, kind: "transition", reason: "drain" },
            { entry: { ...e, status: "processing", stepStatus: "waiting" }, kind: "transition", reason: "back off" },
          ],
        NOW,
        "kintsugi",
      ),
    said: [
      [["queued", "waiting", false, 1], "transition", "kintsugi"],
      [["processing", "draining", false, 1], "transition", "kintsugi"],
    ],
  },
  {
    name: "back-off reset",
    write: (s) => s.entries.resetBackoff("operator", NOW, "carol"),
    said: [[["processing", "waiting", false, 1], "backoff-reset", "carol"]],
  },
  {
    name: "deletion requested",
    write: (s) => s.entries.requestDelete(() => true, "operator", NOW, "bob"),
    said: [[["processing", "waiting", false, 0], "delete-requested", "bob"]],
  },
  {
    name: "dequeued",
    write: async (s) => {
      const change = await s.entries.dequeue(1, (e) => (e.deleted ? "deleted" : null), NOW, "kintsugi");
      return change ? [change] : [];
    },
    said: [[["processing", "waiting", true, 0], "dequeued", "kintsugi"]],
  },
];

/** Each change returned and announced names the entry before it and who made it, as subscriptions publish it. */
export function previousCases(h: StoreHarness): void {
  describe("changes name what they changed", () => {
    it("returns and announces each change with the entry as it was just before it and the actor, for every kind of entry write", async () => {
      const store = await h.open();
      const commits = commitsOf(store);
      for (const step of STEPS) {
        const changes = await step.write(store);
        assert.deepEqual(changes.map(said), step.said, step.name);
        assert.deepEqual(commits.at(-1)?.entries, changes, `${step.name}: announced as returned`);
      }
      assert.deepEqual(
        (await store.entries.history(1)).map((r) => [r.kind, r.actor]),
        STEPS.flatMap((s) => s.said.map((x) => [x[1], x[2]])),
      );
    });
  });
}
