import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateHoldRequest } from "../../../src/domain/holds/machine-holds.js";
import type { StoreCommit } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { ACTOR, commitsOf, newEntry, type StoreHarness } from "./store-harness.js";

const none = { entries: [], outcome: null, generation: null, settings: [] };

/** What the listeners of `onCommit` may do: fail, or write in turn, without breaking the order or a write. */
export function listenerCases(h: StoreHarness): void {
  describe("commit listeners", () => {
    it("keeps a listener that throws from the listeners after it and from the write", async () => {
      const store = await h.open();
      store.onCommit(() => {
        throw new Error("listener bug");
      });
      const after = commitsOf(store);
      const change = await store.entries.add(newEntry("10.0.0.1"), "added", NOW, ACTOR);
      assert.deepEqual(after, [{ ...none, entries: [change] }], "the listener after the failing one heard the commit");
      assert.deepEqual(store.entries.list(), [change.entry], "the write stands");
      await store.settings.setRepairQueueEnabled(false);
      assert.deepEqual(after.at(-1), { ...none, settings: ["repair-queue-enabled"] }, "and the next commit is announced");
    });

    it("announces a listener's own write after the commit it heard reached every listener", async () => {
      const store = await h.open();
      const order: string[] = [];
      const name = (c: StoreCommit) => c.settings.join() || "entry";
      let own: Promise<void> | null = null;
      store.onCommit((c) => {
        order.push(`first hears ${name(c)}`);
        if (c.entries.length > 0) own = store.settings.setRepairQueueEnabled(false);
      });
      store.onCommit((c) => void order.push(`second hears ${name(c)}`));
      await store.entries.add(newEntry("10.0.0.1"), "added", NOW, ACTOR);
      assert.ok(own, "the first listener started its write");
      await own;
      assert.deepEqual(order, ["first hears entry", "second hears entry", "first hears repair-queue-enabled", "second hears repair-queue-enabled"]);
      assert.equal(store.settings.repairQueueEnabled(), false);
    });

    it("hands out the queue in a new array each time, its entries frozen, and frozen holds", async () => {
      const store = await h.open();
      await store.entries.add(newEntry("10.0.0.1"), "added", NOW, ACTOR);
      const request = { address: "10.0.0.2", reason: "vendor swap", setBy: "alice", until: null };
      await store.holds.hold((stored) => validateHoldRequest(request, stored, NOW), "alice");
      const listed = store.entries.list();
      assert.notEqual(listed, store.entries.list());
      assert.ok(Object.isFrozen(listed[0]));
      listed.pop();
      assert.equal(store.entries.list().length, 1, "a caller's array is its own");
      assert.ok(store.holds.list().every((hold) => Object.isFrozen(hold)));
    });
  });
}
