import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateHoldRequest, type HoldRequest, type StoredMachineHold } from "../../../src/domain/holds/machine-holds.js";
import { HoldRefusedError, type HoldChange, type KintsugiStore, type StoreCommit } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { until } from "../../support/until.js";
import { commitsOf, marker, type StoreHarness } from "./store-harness.js";

const HOUR = 3_600_000;
const none = { entries: [], outcome: null, generation: null, settings: [] };
const holdsCommit = (...holds: HoldChange[]): StoreCommit => ({ ...none, holds });

/** Holds `address` through the domain's rules, decided on what the store holds inside the write. */
function hold(store: KintsugiStore, address: string, over: Partial<HoldRequest> = {}, max?: number): Promise<StoredMachineHold> {
  const request: HoldRequest = { address, reason: `reason for ${address}`, setBy: "alice", until: null, ...over };
  return store.holds.hold((stored) => validateHoldRequest(request, stored, NOW, max), request.setBy);
}

const stored = (address: string, over: Partial<StoredMachineHold> = {}): StoredMachineHold => ({
  address,
  reason: `reason for ${address}`,
  setBy: "alice",
  setAt: NOW,
  until: null,
  ...over,
});

/** Machine holds: stored per address, decided inside the write, released, expired, announced. */
export function holdCases(h: StoreHarness): void {
  describe("machine holds", () => {
    it("stores, replaces and releases holds, listed by address across a restart, each change announced with its actor", async () => {
      const store = await h.open();
      assert.deepEqual(store.holds.list(), []);
      const commits = commitsOf(store);
      const a = await hold(store, "fd00::1", { until: NOW + HOUR, reason: 'bell \x07 and quote "' });
      const b = await hold(store, "10.0.0.2", { setBy: "bob" });
      const replaced = await hold(store, "fd00::1", { reason: "new reason" });
      assert.deepEqual(store.holds.list(), [b, replaced], "read your own write, ordered by address, the replaced hold gone");
      const released = await store.holds.release("10.0.0.2", "carol");
      assert.deepEqual(released, b);
      assert.deepEqual(commits, [
        holdsCommit({ kind: "set", hold: a, actor: "alice" }),
        holdsCommit({ kind: "set", hold: b, actor: "bob" }),
        holdsCommit({ kind: "set", hold: replaced, actor: "alice" }),
        holdsCommit({ kind: "released", hold: b, actor: "carol" }),
      ]);
      assert.deepEqual((await h.reopen()).holds.list(), [stored("fd00::1", { reason: "new reason" })]);
    });

    it("refuses what its decide refuses, and a release of a machine with no stored hold, storing and announcing nothing", async () => {
      const store = await h.open();
      await hold(store, "10.0.0.1");
      const commits = commitsOf(store);
      await assert.rejects(hold(store, "-rf"), (err: Error) => err instanceof HoldRefusedError && /^address: invalid IP address/.test(err.message));
      await assert.rejects(
        hold(store, "10.0.0.2", {}, 1),
        (err: Error) => err instanceof HoldRefusedError && err.message === "too many holds: at most 1 machines may be held at once",
      );
      await assert.rejects(
        store.holds.release("10.0.0.9", "bob"),
        (err: Error) => err instanceof HoldRefusedError && /^machine "10\.0\.0\.9" has no hold set through kintsugi/.test(err.message),
      );
      const last = await marker(store, "after-refusals");
      assert.deepEqual(commits, [last]);
      assert.deepEqual(store.holds.list(), [stored("10.0.0.1")]);
    });

    it("removes the holds ended by now in one write announced as expired; with none ended it writes nothing", async () => {
      const store = await h.open();
      const ended = await hold(store, "10.0.0.1", { until: NOW + 1 });
      const endsLater = await hold(store, "10.0.0.2", { until: NOW + HOUR });
      const forever = await hold(store, "10.0.0.3");
      const commits = commitsOf(store);
      assert.deepEqual(await store.holds.removeExpired(NOW, "kintsugi"), [], "nothing has ended at now");
      assert.deepEqual(await store.holds.removeExpired(NOW + 1, "kintsugi"), [ended], "a hold ends at its until");
      assert.deepEqual(store.holds.list(), [endsLater, forever]);
      const last = await marker(store, "after-expiry");
      assert.deepEqual(commits, [holdsCommit({ kind: "expired", hold: ended, actor: "kintsugi" }), last]);
    });

    it("removes more ended holds than one write takes in writes of at most 100, each announced as expired", async () => {
      const store = await h.open();
      const ended: StoredMachineHold[] = [];
      for (let i = 0; i < 150; i++) ended.push(await hold(store, `10.0.1.${i}`, { until: NOW + 1 }));
      const commits = commitsOf(store);
      const removed = await store.holds.removeExpired(NOW + 1, "kintsugi");
      const byAddress = (a: StoredMachineHold, b: StoredMachineHold) => a.address.localeCompare(b.address);
      assert.deepEqual([...removed].sort(byAddress), [...ended].sort(byAddress));
      assert.deepEqual(store.holds.list(), []);
      await marker(store, "after-expiry");
      assert.deepEqual(
        commits.map((c) => c.holds?.length),
        [100, 50, undefined],
        "two writes, then the marker",
      );
    });

    it(
      "decides the bound inside the write: two instances holding new machines at once past the bound, one is refused",
      { skip: h.second ? false : "one instance only" },
      async () => {
        const store = await h.open();
        const other = await h.second!();
        await hold(store, "10.0.0.1");
        await until(
          "the second instance saw the first hold",
          () => other.holds.list().length,
          (n) => n === 1,
        );
        const results = await Promise.allSettled([hold(store, "10.0.0.2", {}, 2), hold(other, "10.0.0.3", {}, 2)]);
        const refused = results.filter((r) => r.status === "rejected");
        assert.equal(refused.length, 1, "exactly one of the racing holds is refused");
        assert.match(String((refused[0] as PromiseRejectedResult).reason), /too many holds: at most 2/);
        await until(
          "both instances agree",
          () => other.holds.list().length,
          (n) => n === 2,
        );
        assert.deepEqual(other.holds.list(), store.holds.list());
      },
    );

    it("shows a second instance (a follower) every hold change as the writer announced it", { skip: h.second ? false : "one instance only" }, async () => {
      const store = await h.open();
      const follower = await h.second!();
      const seen = commitsOf(follower);
      const mine = commitsOf(store);
      await hold(store, "10.0.0.1", { until: NOW + 1 });
      await hold(store, "10.0.0.2");
      await store.holds.removeExpired(NOW + 1, "kintsugi");
      await store.holds.release("10.0.0.2", "bob");
      await until(
        "the follower saw every commit",
        () => seen.length,
        (n) => n >= 4,
      );
      assert.deepEqual(seen, mine);
      assert.deepEqual(follower.holds.list(), []);
    });
  });
}
