import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KEPT_GENERATIONS } from "../../../src/domain/cluster/generation-record.js";
import { NOW } from "../../support/fixtures.js";
import { until } from "../../support/until.js";
import { play, type Round } from "./generation-cases.js";
import { ACTOR, cluster, newEntry, type StoreHarness } from "./store-harness.js";

const SECOND = 1000;
const K = KEPT_GENERATIONS;

const failures = (from: number, count: number): Round[] => Array.from({ length: count }, (_, i) => ({ failed: `e${from + i}` }));
const generations = (from: number, count: number): Round[] => Array.from({ length: count }, (_, i) => ({ generated: from + i }));
const sequences = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// Generation records kept: the newest KEPT_GENERATIONS, and the record of the configuration in force whatever its age.
const GENERATIONS: ReadonlyArray<{ name: string; rounds: readonly Round[]; kept: readonly number[]; inForce: number | null; gone: readonly number[] }> = [
  {
    name: "failures only (a template that never succeeds): the newest kept",
    rounds: failures(1, K + 4),
    kept: sequences(5, K + 4),
    inForce: null,
    gone: [],
  },
  {
    name: "configurations only: the newest kept, the older ones no longer found by number",
    rounds: generations(1, K + 4),
    kept: sequences(5, K + 4),
    inForce: K + 4,
    gone: [1, 4],
  },
  {
    name: "the configuration in force older than the newest: kept beside them",
    rounds: [...generations(1, 1), ...failures(1, K + 4)],
    kept: [1, ...sequences(6, K + 5)],
    inForce: 1,
    gone: [],
  },
  {
    name: "an old configuration once a newer one is in force: no longer kept",
    rounds: [...generations(1, 1), ...failures(1, K), ...generations(2, 1)],
    kept: sequences(3, K + 2),
    inForce: 2,
    gone: [1],
  },
  {
    name: "a failure repeated many times: one record, nothing pruned",
    rounds: [...generations(1, 1), ...Array.from({ length: K + 4 }, () => ({ failed: "again" }))],
    kept: [1, 2],
    inForce: 1,
    gone: [],
  },
];

/** What the store keeps and for how long: generation records, history beside finished records, across restarts. */
export function retentionCases(h: StoreHarness): void {
  describe("retention", () => {
    for (const c of GENERATIONS) {
      it(`keeps the newest ${K} generation records and the configuration in force: ${c.name}`, async () => {
        let store = await h.open();
        await play(store, c.rounds);
        for (const when of ["as written", "after a restart"]) {
          if (when !== "as written") store = await h.reopen();
          const g = store.generations;
          assert.deepEqual(
            g.last(K + 100).map((r) => r.sequence),
            c.kept,
            `${when}: kept, nothing else`,
          );
          assert.equal(g.current()?.generation ?? null, c.inForce, `${when}: the configuration in force`);
          if (c.inForce !== null) assert.deepEqual(g.generation(c.inForce), g.current(), `${when}: found by its number`);
          for (const n of c.gone) assert.equal(g.generation(n), null, `${when}: configuration ${n} is gone`);
        }
      });
    }

    it("names the pinned configuration in every failure after it, and numbers the next configuration after it, across a restart", async () => {
      let store = await h.open();
      await play(store, [...generations(1, 1), ...failures(1, K + 4)]);
      store = await h.reopen();
      const { record } = await store.generations.recordFailed(NOW + (K + 10) * 60_000, "schedule", "after the restart");
      assert.deepEqual(
        store.generations.last(null).map((r) => r.generation),
        Array.from({ length: K }, () => 1),
      );
      assert.equal(record.sequence, K + 6);
      assert.equal(store.generations.last(K + 100)[0]?.sequence, 1, "still pinned");
      const next = await store.generations.recordGenerated(NOW + (K + 11) * 60_000, "schedule", cluster(999), []);
      assert.deepEqual([next.generation, store.generations.generation(1)], [2, null], "unpinned once replaced");
    });

    it(
      "shows a second instance (a follower) the same kept records as the writer, the pinned one included",
      { skip: h.second ? false : "one instance only" },
      async () => {
        const store = await h.open();
        const follower = await h.second!();
        await play(store, [...generations(1, 1), ...failures(1, K + 4)]);
        const kept = store.generations.last(K + 100);
        await until(
          "the follower has the newest record",
          () => follower.generations.latest()?.sequence,
          (n) => n === K + 5,
        );
        assert.deepEqual(follower.generations.last(K + 100), kept);
        assert.deepEqual(follower.generations.current(), store.generations.current());
      },
    );

    it("keeps the newest finished-repair records as each repair ends, a summary stored for the oldest moving none", async () => {
      const store = await h.open({ keepFinishedRepairs: 2 });
      const kept: number[][] = [];
      for (let i = 1; i <= 4; i++) {
        await store.entries.add(newEntry(`10.0.1.${i}`), "added", NOW, ACTOR);
        const at = NOW + i * SECOND;
        await store.entries.change(
          i,
          (e) => e && [{ entry: { ...e, status: "failed", lastTransitionTime: at }, kind: "transition", reason: "failed" }],
          at,
          ACTOR,
        );
        const oldest = store.finished.list().at(-1)!;
        await store.finished.storeSummaries([{ sequence: oldest.sequence, summary: null }]);
        kept.push(store.finished.list().map((r) => r.entryIndex));
      }
      assert.deepEqual(kept, [[1], [2, 1], [3, 2], [4, 3]]);
    });

    it("keeps an entry's whole history after its finished-repair record was dropped: the history is never pruned", async () => {
      let store = await h.open({ keepFinishedRepairs: 2 });
      for (let i = 1; i <= 4; i++) {
        await store.entries.add(newEntry(`10.0.0.${i}`), "added", NOW, ACTOR);
        await store.entries.change(
          i,
          (e) => e && [{ entry: { ...e, status: "failed", lastTransitionTime: NOW + i * SECOND }, kind: "transition", reason: "failed" }],
          NOW + i * SECOND,
          ACTOR,
        );
        await store.entries.dequeue(i, () => "dequeued", NOW + i * SECOND + 1, ACTOR);
      }
      for (const when of ["as written", "after a restart"]) {
        if (when !== "as written") store = await h.reopen({ keepFinishedRepairs: 2 });
        assert.deepEqual(
          store.finished.list().map((r) => r.entryIndex),
          [4, 3],
          `${when}: the newest finished records`,
        );
        for (let i = 1; i <= 4; i++) {
          assert.deepEqual(
            (await store.entries.history(i)).map((r) => [r.entryIndex, r.kind]),
            [
              [i, "created"],
              [i, "transition"],
              [i, "dequeued"],
            ],
            `${when}: the history of entry ${i}`,
          );
        }
        const read = await store.entries.timelines(1, 4, 100);
        assert.deepEqual([read.completeThrough, [...read.timelines.keys()]], [4, [1, 2, 3, 4]], `${when}: every timeline whole`);
      }
    });
  });
}
