import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FAILURE_REASON_CHARS } from "../../../src/domain/queue/finished-repair.js";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { ACTOR, newEntry, type StoreHarness } from "./store-harness.js";

const SECOND = 1000;

/** Moves entry `index` to `status` at `time` (its last transition). */
async function finish(store: KintsugiStore, index: number, status: RepairEntry["status"], time: number): Promise<void> {
  await store.entries.change(index, (e) => e && [{ entry: { ...e, status, lastTransitionTime: time }, kind: "transition", reason: status }], time, "kintsugi");
}

/** The records of finished repairs: one per entry, written with the change that ended it, bounded, kept across restarts. */
export function finishedCases(h: StoreHarness): void {
  describe("finished repairs", () => {
    it("keeps one record per ended entry (succeeded, failed, deleted before finishing), newest first, with a since filter, across a restart", async () => {
      let store = await h.open();
      for (const address of ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"])
        await store.entries.add(newEntry(address, { source: "sabakan" }), "test", NOW, ACTOR);
      await finish(store, 1, "processing", NOW + SECOND);
      assert.deepEqual(store.finished.list(), [], "an entry in progress has no record");
      await finish(store, 1, "succeeded", NOW + 2 * SECOND);
      await finish(store, 2, "failed", NOW + 3 * SECOND);
      await store.entries.dequeue(1, () => "finished", NOW + 4 * SECOND, "kintsugi");
      await store.entries.dequeue(3, () => "deleted", NOW + 5 * SECOND, "alice");
      await store.entries.change(4, (e) => e && [{ entry: e, kind: "note", reason: "a note" }], NOW + 6 * SECOND, "kintsugi");
      const history1 = await store.entries.history(1);
      const expected = [
        { entryIndex: 3, status: "deleted", finishedAt: NOW + 5 * SECOND },
        { entryIndex: 2, status: "failed", finishedAt: NOW + 3 * SECOND },
        { entryIndex: 1, status: "succeeded", finishedAt: NOW + 2 * SECOND },
      ];
      const brief = (s: KintsugiStore, since?: number) =>
        s.finished.list(since).map(({ entryIndex, status, finishedAt }) => ({ entryIndex, status, finishedAt }));
      assert.deepEqual(brief(store), expected, "the dequeue of a finished entry adds no second record; a note adds none");
      const first = store.finished.list().at(-1);
      assert.deepEqual(first, {
        sequence: history1.find((r) => r.status === "succeeded")?.sequence,
        entryIndex: 1,
        address: "10.0.0.1",
        machineType: "qemu",
        operation: "unreachable",
        source: "sabakan",
        createdAt: NOW,
        finishedAt: NOW + 2 * SECOND,
        status: "succeeded",
        proof: null,
      });
      assert.deepEqual(brief(store, NOW + 3 * SECOND), expected.slice(0, 2), "since is inclusive");
      store = await h.reopen();
      assert.deepEqual(brief(store), expected);
    });

    it("keeps why a repair failed (bounded), found by the entry's index, across a restart; a success or a deletion has no reason", async () => {
      let store = await h.open();
      for (const address of ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]) await store.entries.add(newEntry(address), "test", NOW, ACTOR);
      const end = (index: number, status: RepairEntry["status"], reason: string) =>
        store.entries.change(
          index,
          (e) => e && [{ entry: { ...e, status, lastTransitionTime: NOW + SECOND }, kind: "transition", reason }],
          NOW + SECOND,
          "kintsugi",
        );
      const why = "step 1: repair command failed: exit code 2; stderr: Unable to establish IPMI v2 / RMCP+ session";
      await end(1, "failed", why);
      await end(2, "failed", `step 1: ${"x".repeat(FAILURE_REASON_CHARS * 2)}`);
      await end(3, "succeeded", "the health check reports the machine healthy");
      await store.entries.dequeue(4, () => "deleted", NOW + 2 * SECOND, "alice");
      await store.entries.dequeue(1, () => "finished", NOW + 3 * SECOND, "kintsugi");
      const reasons = (s: KintsugiStore) => [1, 2, 3, 4].map((index) => s.finished.ofEntry(index)?.reason);
      const expected = [why, `step 1: ${"x".repeat(FAILURE_REASON_CHARS * 2)}`.slice(0, FAILURE_REASON_CHARS), undefined, undefined];
      assert.deepEqual(reasons(store), expected, "the dequeue of the failed entry leaves its reason as it was");
      assert.equal(store.finished.ofEntry(5), undefined, "no record of an entry that never ended");
      store = await h.reopen();
      assert.deepEqual(reasons(store), expected);
    });

    it("keeps how a success's required proof of repair ended, so pacing reads it after a restart: proven, unproven, none required", async () => {
      let store = await h.open();
      const evidence = {
        step: 0,
        bootIdBefore: "boot-a",
        bootIdAfter: "boot-b",
        since: { boot_id_changed: NOW },
        dwellStartedAt: NOW,
        dwellStarts: 1,
        provenAt: NOW + SECOND,
      };
      for (const address of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) await store.entries.add(newEntry(address), "test", NOW, ACTOR);
      const succeed = (index: number, extra: Partial<RepairEntry>) =>
        store.entries.change(
          index,
          (e) => e && [{ entry: { ...e, ...extra, status: "succeeded", lastTransitionTime: NOW + 2 * SECOND }, kind: "transition", reason: "succeeded" }],
          NOW + 2 * SECOND,
          "kintsugi",
        );
      await succeed(1, { evidence });
      await succeed(2, { evidence: { ...evidence, provenAt: null } });
      await succeed(3, {});
      const proofs = (s: KintsugiStore) =>
        s.finished
          .list()
          .map((r) => [r.entryIndex, r.proof])
          .sort(([a], [b]) => Number(a) - Number(b));
      assert.deepEqual(proofs(store), [
        [1, "proven"],
        [2, "unproven"],
        [3, null],
      ]);
      store = await h.reopen();
      assert.deepEqual(proofs(store), [
        [1, "proven"],
        [2, "unproven"],
        [3, null],
      ]);
    });

    it("keeps only the newest records by sequence, dropping the oldest in the write that adds one", async () => {
      const store = await h.open({ keepFinishedRepairs: 3 });
      for (let i = 1; i <= 5; i++) {
        await store.entries.add(newEntry(`10.0.0.${i}`), "test", NOW, ACTOR);
        await store.entries.dequeue(i, () => "deleted", NOW + i * SECOND, ACTOR);
      }
      assert.deepEqual(
        store.finished.list().map((r) => r.entryIndex),
        [5, 4, 3],
      );
      assert.deepEqual(
        (await h.reopen({ keepFinishedRepairs: 3 })).finished.list().map((r) => r.entryIndex),
        [5, 4, 3],
      );
    });

    it("writes nothing when the change that would end an entry does not commit", async () => {
      const store = await h.open();
      await store.entries.add(newEntry("10.0.0.1"), "test", NOW, ACTOR);
      await assert.rejects(
        store.entries.change(
          1,
          (e) =>
            e && [
              { entry: { ...e, status: "succeeded" }, kind: "transition", reason: "ok" },
              { entry: { ...e, index: 9 }, kind: "transition", reason: "wrong index" },
            ],
          NOW,
          ACTOR,
        ),
        /cannot write entry 9/,
      );
      assert.deepEqual(store.finished.list(), []);
      assert.equal(store.entries.get(1)?.status, "queued");
    });
  });
}
