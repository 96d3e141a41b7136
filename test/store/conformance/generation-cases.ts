import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { GeneratedCluster } from "../../../src/domain/cluster/types.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { until } from "../../support/until.js";
import { cluster, type StoreHarness } from "./store-harness.js";

const MINUTE = 60_000;

/** One cluster-generation round: a configuration generated (`n` varies it) or a failure with this error. */
export type Round = { readonly generated: number } | { readonly failed: string };

/** Records `rounds` in order, a minute apart. */
export async function play(store: KintsugiStore, rounds: readonly Round[], from = NOW): Promise<void> {
  for (const [i, round] of rounds.entries()) {
    const time = from + i * MINUTE;
    if ("generated" in round) await store.generations.recordGenerated(time, "schedule", cluster(round.generated), [`change ${round.generated}`]);
    else await store.generations.recordFailed(time, "schedule", round.failed);
  }
}

/** Each kept record as [sequence, generation, error, repeats], oldest first. */
const rows = (store: KintsugiStore) => store.generations.last(null).map((g) => [g.sequence, g.generation, g.error, g.repeats]);

/** A configuration whose control planes are `planes`. */
const withPlanes = (planes: readonly string[]): GeneratedCluster => ({
  ...cluster(1),
  nodes: [...cluster(1).nodes.filter((n) => !n.control_plane), ...planes.map((address) => ({ ...cluster(1).nodes[0]!, address }))],
});

// Which failures fold into the newest record (one record, repeats grown) and which make a new one.
const FOLDING: ReadonlyArray<{ name: string; rounds: readonly Round[]; rows: unknown[][] }> = [
  {
    name: "the same error three times in a row: one record, repeated 3 times",
    rounds: [{ failed: "e1" }, { failed: "e1" }, { failed: "e1" }],
    rows: [[1, 0, "e1", 3]],
  },
  {
    name: "a different error: a new record",
    rounds: [{ failed: "e1" }, { failed: "e2" }],
    rows: [
      [1, 0, "e1", 1],
      [2, 0, "e2", 1],
    ],
  },
  {
    name: "an earlier error back after another one: a new record",
    rounds: [{ failed: "e1" }, { failed: "e2" }, { failed: "e1" }],
    rows: [
      [1, 0, "e1", 1],
      [2, 0, "e2", 1],
      [3, 0, "e1", 1],
    ],
  },
  {
    name: "the error seen before a generation, after it: a new record naming the generation",
    rounds: [{ failed: "e1" }, { generated: 1 }, { failed: "e1" }],
    rows: [
      [1, 0, "e1", 1],
      [2, 1, null, 1],
      [3, 1, "e1", 1],
    ],
  },
];

/** Cluster generation records: numbering, folding of repeated failures, lookups by number, control planes. */
export function generationCases(h: StoreHarness): void {
  describe("cluster generation numbering and lookups", () => {
    it("is empty at first: no record, no configuration in force, no number found, no control plane", async () => {
      const store = await h.open();
      const g = store.generations;
      assert.deepEqual(
        [g.current(), g.latest(), g.last(null), g.last(5), g.generation(0), g.generation(1), g.controlPlaneAddresses()],
        [null, null, [], [], null, null, []],
      );
    });

    for (const generations of [0, 1, 2]) {
      it(`a failed round names the generation in force (${generations}) and leaves it in force`, async () => {
        const store = await h.open();
        await play(
          store,
          Array.from({ length: generations }, (_, i) => ({ generated: i + 1 })),
        );
        const before = store.generations.current();
        const { record, repeated } = await store.generations.recordFailed(NOW + MINUTE * 10, "template", "cannot update the cluster: broken");
        assert.deepEqual(
          [repeated, record.generation, record.cluster, record.changes, record.error],
          [false, generations, null, [], "cannot update the cluster: broken"],
        );
        assert.deepEqual([store.generations.current(), store.generations.latest()], [before, record]);
        assert.equal(store.generations.generation(generations)?.outcome ?? null, generations === 0 ? null : "generated", "a failure is no configuration");
      });
    }

    for (const c of FOLDING) {
      it(`folds a failure into the newest record only when it repeats its error: ${c.name}`, async () => {
        const store = await h.open();
        await play(store, c.rounds);
        assert.deepEqual(rows(store), c.rows);
        assert.deepEqual(rows(await h.reopen()), c.rows);
      });
    }

    it("keeps the first round's time and trigger in a folded record, and folds and numbers on after a restart", async () => {
      let store = await h.open();
      await store.generations.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
      const first = await store.generations.recordFailed(NOW + MINUTE, "schedule", "e1");
      await store.generations.recordFailed(NOW + 2 * MINUTE, "template", "e1");
      store = await h.reopen();
      const again = await store.generations.recordFailed(NOW + 3 * MINUTE, "operator", "e1");
      assert.deepEqual([again.repeated, again.record], [true, { ...first.record, repeats: 3, lastTime: NOW + 3 * MINUTE }]);
      const next = await store.generations.recordGenerated(NOW + 4 * MINUTE, "schedule", cluster(2), []);
      assert.deepEqual([next.sequence, next.generation], [3, 2]);
    });

    it("finds a configuration by its number, never a failure recorded under it", async () => {
      const store = await h.open();
      await play(store, [{ failed: "e1" }, { generated: 1 }, { failed: "e2" }, { generated: 2 }, { failed: "e3" }]);
      const found = [0, 1, 2, 3].map((n) => store.generations.generation(n));
      assert.deepEqual(
        found.map((g) => g && [g.sequence, g.outcome, g.cluster, g.changes]),
        [null, [2, "generated", cluster(1), ["change 1"]], [4, "generated", cluster(2), ["change 2"]], null],
      );
    });

    it("knows the control planes of the configuration in force: a failed round leaves them, a newer configuration replaces them", async () => {
      const store = await h.open();
      await store.generations.recordGenerated(NOW, "schedule", withPlanes(["10.0.0.1", "10.0.0.2"]), []);
      assert.deepEqual(store.generations.controlPlaneAddresses(), ["10.0.0.1", "10.0.0.2"]);
      await store.generations.recordFailed(NOW + MINUTE, "schedule", "sabakan is unreachable");
      assert.deepEqual(store.generations.controlPlaneAddresses(), ["10.0.0.1", "10.0.0.2"]);
      await store.generations.recordGenerated(NOW + 2 * MINUTE, "schedule", withPlanes(["10.0.0.3"]), []);
      assert.deepEqual(store.generations.controlPlaneAddresses(), ["10.0.0.3"]);
      assert.deepEqual((await h.reopen()).generations.controlPlaneAddresses(), ["10.0.0.3"]);
    });

    it("shows a second instance (a follower) the configuration the writer recorded", { skip: h.second ? false : "one instance only" }, async () => {
      const store = await h.open();
      const follower = await h.second!();
      await store.generations.recordGenerated(NOW, "schedule", withPlanes(["10.0.0.1"]), []);
      const latest = await store.generations.recordGenerated(NOW + MINUTE, "operator", withPlanes(["10.0.0.7"]), []);
      await until(
        "the follower has the newer configuration",
        () => follower.generations.current(),
        (g) => g?.generation === 2,
      );
      assert.deepEqual([follower.generations.current(), follower.generations.controlPlaneAddresses()], [latest, ["10.0.0.7"]]);
    });
  });
}
