import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { GeneratedCluster } from "../../../src/domain/cluster/types.js";
import { SqliteGenerationStore } from "../../../src/store/sqlite/cluster-generation-store.js";
import { openDatabase, type Db } from "../../../src/store/sqlite/database.js";
import { SqliteCommits } from "../../../src/store/sqlite/sqlite-commits.js";
import { tempDir } from "../../support/temp-dir.js";

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const MINUTE = 60_000;

/** A small generated cluster; `n` varies the address of its worker so each one differs. */
const cluster = (n: number): GeneratedCluster => ({
  name: "tokyo",
  service_subnet: "10.68.0.0/16",
  control_plane_tolerations: ["dedicated"],
  extra: { options: { kubelet: { cgroup_driver: "systemd" } } },
  nodes: [
    {
      address: "10.0.0.1",
      user: "cybozu",
      control_plane: true,
      labels: { "cke.cybozu.com/rack": "0" },
      annotations: { "cke.cybozu.com/serial": "m000" },
      taints: [],
    },
    {
      address: `10.0.1.${n + 1}`,
      user: "cybozu",
      control_plane: false,
      labels: {},
      annotations: {},
      taints: [{ key: "cke.cybozu.com/state", value: "retiring", effect: "NoExecute" }],
    },
  ],
});

/** The generation store over `db`, keeping `keep` records (the default when undefined). */
const generationStore = (db: Db, keep?: number) => new SqliteGenerationStore(db, new SqliteCommits(db), keep);

/** Runs `body` with a store on a fresh database file, closing and removing it afterwards. */
async function withStore(body: (store: SqliteGenerationStore, db: Db, file: string) => Promise<void>, keep?: number): Promise<void> {
  const dir = tempDir();
  const file = join(dir.path, "k.db");
  const db = openDatabase(file);
  try {
    await body(generationStore(db, keep), db, file);
  } finally {
    if (db.open) db.close();
    dir.remove();
  }
}

const seqs = (db: Db) => (db.prepare("SELECT seq FROM cluster_generations ORDER BY seq").all() as Array<{ seq: number }>).map((r) => r.seq);

describe("ClusterGenerationStore", () => {
  it("is empty at first", async () => {
    await withStore(async (store) => {
      assert.equal(store.current(), null);
      assert.equal(store.latest(), null);
      assert.deepEqual(store.last(null), []);
      assert.deepEqual(store.last(5), []);
      assert.equal(store.generation(1), null);
    });
  });

  describe("recordGenerated", () => {
    it("numbers the generations 1, 2, 3 and current() is the newest, cluster and all", async () => {
      await withStore(async (store) => {
        const records = [];
        for (const i of [1, 2, 3]) records.push(await store.recordGenerated(NOW + i * MINUTE, "schedule", cluster(i), [`change ${i}`]));
        assert.deepEqual(
          records.map((r) => r.generation),
          [1, 2, 3],
        );
        const current = store.current();
        assert.equal(current?.generation, 3);
        assert.deepEqual(current?.cluster, cluster(3));
        assert.deepEqual(current, records[2]);
        assert.deepEqual(store.last(null), records);
      });
    });

    it("returns exactly what it stored", async () => {
      await withStore(async (store) => {
        const r = await store.recordGenerated(NOW, "operator", cluster(1), ["initialize the cluster from the template: 2 nodes", "add control plane 10.0.0.1"]);
        assert.deepEqual(r, {
          sequence: 1,
          outcome: "generated",
          time: NOW,
          lastTime: NOW,
          repeats: 1,
          trigger: "operator",
          policy: "weighted",
          generation: 1,
          cluster: cluster(1),
          changes: ["initialize the cluster from the template: 2 nodes", "add control plane 10.0.0.1"],
          error: null,
        });
        assert.deepEqual(store.current(), r);
        assert.deepEqual(store.latest(), r);
      });
    });

    it("stores the configuration gzip'd, and reads it back only when asked for", async () => {
      await withStore(async (store, db) => {
        await store.recordGenerated(NOW, "operator", cluster(1), ["x"]);
        const { cluster: blob } = db.prepare("SELECT cluster FROM cluster_generations").get() as { cluster: Buffer };
        assert.ok(Buffer.isBuffer(blob));
        assert.deepEqual([...blob.subarray(0, 2)], [0x1f, 0x8b], "gzip magic");
        const [listed] = store.last(null);
        assert.equal(listed?.outcome, "generated", "the outcome is known without the configuration");
        assert.deepEqual(listed?.cluster, cluster(1));
      });
    });
  });

  describe("recordFailed", () => {
    const cases: Array<[string, number, number]> = [
      ["before any generation: generation 0", 0, 0],
      ["after one generation: generation 1", 1, 1],
      ["after two generations: generation 2", 2, 2],
    ];
    for (const [name, generations, expected] of cases) {
      it(`records the generation in force and leaves current() alone: ${name}`, async () => {
        await withStore(async (store) => {
          for (let i = 1; i <= generations; i++) await store.recordGenerated(NOW + i, "schedule", cluster(i), []);
          const before = store.current();
          const { record, repeated } = await store.recordFailed(NOW + MINUTE, "template", "cannot update the cluster: broken");
          assert.equal(repeated, false);
          assert.equal(record.generation, expected);
          assert.equal(record.cluster, null);
          assert.deepEqual(record.changes, []);
          assert.equal(record.error, "cannot update the cluster: broken");
          assert.deepEqual(store.current(), before);
          assert.deepEqual(store.latest(), record);
        });
      });
    }

    it("folds the same error twice in a row into one record: repeats 2, lastTime updated", async () => {
      await withStore(async (store) => {
        const first = await store.recordFailed(NOW, "schedule", "e1");
        const second = await store.recordFailed(NOW + MINUTE, "template", "e1");
        assert.equal(first.repeated, false);
        assert.equal(second.repeated, true);
        assert.equal(second.record.sequence, first.record.sequence);
        assert.equal(second.record.repeats, 2);
        assert.equal(second.record.time, NOW);
        assert.equal(second.record.lastTime, NOW + MINUTE);
        // The first round's trigger stays.
        assert.equal(second.record.trigger, "schedule");
        assert.deepEqual(store.last(null), [second.record]);

        const third = await store.recordFailed(NOW + 2 * MINUTE, "schedule", "e1");
        assert.equal(third.repeated, true);
        assert.deepEqual(store.last(null), [{ ...first.record, repeats: 3, lastTime: NOW + 2 * MINUTE }]);
      });
    });

    it("makes a new record for a different error", async () => {
      await withStore(async (store) => {
        await store.recordFailed(NOW, "schedule", "e1");
        const other = await store.recordFailed(NOW + MINUTE, "schedule", "e2");
        assert.equal(other.repeated, false);
        assert.deepEqual(
          store.last(null).map((r) => [r.error, r.repeats]),
          [
            ["e1", 1],
            ["e2", 1],
          ],
        );
      });
    });

    it("makes a new record when an earlier error comes back after another one", async () => {
      await withStore(async (store) => {
        await store.recordFailed(NOW, "schedule", "e1");
        await store.recordFailed(NOW + MINUTE, "schedule", "e2");
        assert.equal((await store.recordFailed(NOW + 2 * MINUTE, "schedule", "e1")).repeated, false);
        assert.deepEqual(
          store.last(null).map((r) => r.error),
          ["e1", "e2", "e1"],
        );
      });
    });

    it("makes a new record for a failure after a generation, even with the error seen before it", async () => {
      await withStore(async (store) => {
        await store.recordFailed(NOW, "schedule", "e1");
        await store.recordGenerated(NOW + MINUTE, "operator", cluster(1), ["initialize"]);
        const after = await store.recordFailed(NOW + 2 * MINUTE, "schedule", "e1");
        assert.equal(after.repeated, false);
        assert.equal(after.record.generation, 1);
        assert.deepEqual(
          store.last(null).map((r) => [r.sequence, r.generation, r.error, r.repeats]),
          [
            [1, 0, "e1", 1],
            [2, 1, null, 1],
            [3, 1, "e1", 1],
          ],
        );
      });
    });
  });

  describe("pruning", () => {
    it("keeps only the newest `keep` records before any generation (a template that never succeeds)", async () => {
      await withStore(async (store, db) => {
        for (let i = 1; i <= 5; i++) await store.recordFailed(NOW + i, "schedule", `e${i}`);
        assert.deepEqual(seqs(db), [3, 4, 5]);
        assert.deepEqual(
          store.last(null).map((r) => r.error),
          ["e3", "e4", "e5"],
        );
      }, 3);
    });

    it("keeps only the newest `keep` records besides the configuration in force", async () => {
      await withStore(async (store, db) => {
        await store.recordGenerated(NOW, "operator", cluster(1), []);
        for (let i = 1; i <= 5; i++) await store.recordFailed(NOW + i, "schedule", `e${i}`);
        assert.deepEqual(seqs(db), [1, 4, 5, 6]);
        assert.deepEqual(
          store.last(3).map((r) => r.error),
          ["e3", "e4", "e5"],
        );
      }, 3);
    });

    it("keeps only the newest `keep` generations when nothing fails", async () => {
      await withStore(async (store, db) => {
        for (let i = 1; i <= 5; i++) await store.recordGenerated(NOW + i, "schedule", cluster(i), []);
        assert.deepEqual(seqs(db), [3, 4, 5]);
        assert.equal(store.current()?.generation, 5);
        assert.equal((await store.recordGenerated(NOW + 6, "schedule", cluster(6), [])).generation, 6);
      }, 3);
    });

    it("never prunes the configuration in force: 1 generation then 10 distinct failures with keep 3", async () => {
      await withStore(async (store, db) => {
        const gen = await store.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
        for (let i = 1; i <= 10; i++) await store.recordFailed(NOW + i * MINUTE, "schedule", `e${i}`);
        assert.deepEqual(store.current(), gen);
        assert.deepEqual(store.generation(1), gen);
        // The newest 3 and the pinned configuration in force.
        assert.deepEqual(seqs(db), [1, 9, 10, 11]);
        assert.deepEqual(
          store.last(3).map((r) => r.error),
          ["e8", "e9", "e10"],
        );
        assert.deepEqual(
          store.last(10).map((r) => r.sequence),
          [1, 9, 10, 11],
        );
        // The failures still name the generation in force, and the next generation is 2.
        assert.ok(store.last(3).every((r) => r.generation === 1));
        assert.equal((await store.recordGenerated(NOW + 11 * MINUTE, "schedule", cluster(2), [])).generation, 2);
      }, 3);
    });

    it("unpins the old configuration once a newer one is recorded", async () => {
      await withStore(async (store, db) => {
        await store.recordGenerated(NOW, "operator", cluster(1), []);
        for (let i = 1; i <= 4; i++) await store.recordFailed(NOW + i, "schedule", `e${i}`);
        await store.recordGenerated(NOW + 5, "schedule", cluster(2), []);
        assert.deepEqual(seqs(db), [4, 5, 6]);
        assert.equal(store.generation(1), null);
        assert.equal(store.current()?.generation, 2);
      }, 3);
    });
  });

  describe("generation(n)", () => {
    const cases: Array<[string, number, number | null]> = [
      ["the newest", 5, 5],
      ["a kept older one", 3, 3],
      ["a pruned one", 2, null],
      ["the first, pruned", 1, null],
      ["an unknown one", 6, null],
      ["generation 0 (no configuration)", 0, null],
    ];
    for (const [name, n, expected] of cases) {
      it(name, async () => {
        await withStore(async (store) => {
          for (let i = 1; i <= 5; i++) await store.recordGenerated(NOW + i, "schedule", cluster(i), [`change ${i}`]);
          const g = store.generation(n);
          if (expected === null) assert.equal(g, null);
          else {
            assert.equal(g?.generation, expected);
            assert.deepEqual(g?.cluster, cluster(expected));
            assert.deepEqual(g?.changes, [`change ${expected}`]);
          }
        }, 3);
      });
    }

    it("does not return a failure recorded under a generation's number", async () => {
      await withStore(async (store) => {
        await store.recordFailed(NOW, "schedule", "e1");
        assert.equal(store.generation(0), null);
        await store.recordGenerated(NOW + 1, "schedule", cluster(1), []);
        await store.recordFailed(NOW + 2, "schedule", "e2");
        assert.deepEqual(store.generation(1)?.cluster, cluster(1));
        assert.equal(store.generation(1)?.sequence, 2);
      });
    });
  });

  it("keeps its data across closing and reopening the database file", async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "k.db");
      let db = openDatabase(file);
      let store = generationStore(db);
      await store.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
      await store.recordGenerated(NOW + MINUTE, "schedule", cluster(2), ["add worker"]);
      await store.recordFailed(NOW + 2 * MINUTE, "schedule", "e1");
      await store.recordFailed(NOW + 3 * MINUTE, "schedule", "e1");
      const before = store.last(null);
      const current = store.current();
      db.close();

      db = openDatabase(file);
      store = generationStore(db);
      assert.deepEqual(store.last(null), before);
      assert.deepEqual(store.current(), current);
      assert.deepEqual(store.current()?.cluster, cluster(2));
      assert.deepEqual(store.generation(1)?.cluster, cluster(1));
      // The same error after the restart still folds into the newest record, and numbering goes on.
      assert.equal((await store.recordFailed(NOW + 4 * MINUTE, "schedule", "e1")).record.repeats, 3);
      assert.equal((await store.recordGenerated(NOW + 5 * MINUTE, "schedule", cluster(3), [])).generation, 3);
      db.close();
    } finally {
      dir.remove();
    }
  });

  describe("schema", () => {
    const insert = (db: Db, row: { cluster: string | null; error: string | null; repeats?: number; generation?: number }) =>
      db
        .prepare(
          `INSERT INTO cluster_generations (time, last_time, repeats, trigger, generation, cluster, changes, error)
          VALUES (?, ?, ?, 'schedule', ?, ?, '[]', ?)`,
        )
        .run(NOW, NOW, row.repeats ?? 1, row.generation ?? 1, row.cluster, row.error);

    it("refuses a row with both a cluster and an error", async () => {
      await withStore(async (store, db) => {
        assert.throws(() => insert(db, { cluster: JSON.stringify(cluster(1)), error: "e1" }), /CHECK constraint failed/);
        assert.deepEqual(store.last(null), []);
      });
    });

    it("refuses repeats below 1 and a negative generation", async () => {
      await withStore(async (_store, db) => {
        assert.throws(() => insert(db, { cluster: null, error: "e1", repeats: 0 }), /CHECK constraint failed/);
        assert.throws(() => insert(db, { cluster: null, error: "e1", generation: -1 }), /CHECK constraint failed/);
      });
    });

    it("refuses two configurations with the same generation number", async () => {
      await withStore(async (store, db) => {
        await store.recordGenerated(NOW, "schedule", cluster(1), []);
        assert.throws(() => insert(db, { cluster: JSON.stringify(cluster(2)), error: null, generation: 1 }), /UNIQUE constraint failed/);
        // Failures may share the number of the generation in force.
        insert(db, { cluster: null, error: "e1", generation: 1 });
      });
    });
  });

  describe("controlPlaneAddresses", () => {
    const withPlanes = (planes: string[]): GeneratedCluster => ({
      ...cluster(1),
      nodes: [...cluster(1).nodes.filter((n) => !n.control_plane), ...planes.map((address) => ({ ...cluster(1).nodes[0]!, address }))],
    });

    it("lists the control planes of the configuration in force, none before the first", async () => {
      await withStore(async (store) => {
        assert.deepEqual(store.controlPlaneAddresses(), []);
        await store.recordGenerated(NOW, "schedule", withPlanes(["10.0.0.1", "10.0.0.2"]), []);
        assert.deepEqual(store.controlPlaneAddresses(), ["10.0.0.1", "10.0.0.2"]);
        await store.recordFailed(NOW + MINUTE, "schedule", "sabakan is unreachable");
        assert.deepEqual(store.controlPlaneAddresses(), ["10.0.0.1", "10.0.0.2"], "a failed round leaves the configuration in force");
        await store.recordGenerated(NOW + 2 * MINUTE, "schedule", withPlanes(["10.0.0.3"]), []);
        assert.deepEqual(store.controlPlaneAddresses(), ["10.0.0.3"]);
      });
    });

    it("decodes a configuration once, and sees one recorded through another connection", async () => {
      await withStore(async (store, _db, file) => {
        await store.recordGenerated(NOW, "schedule", withPlanes(["10.0.0.1"]), []);
        const first = store.controlPlaneAddresses();
        assert.equal(store.controlPlaneAddresses(), first, "the same kept list while the generation is the same");
        const other = openDatabase(file);
        try {
          await generationStore(other).recordGenerated(NOW + MINUTE, "operator", withPlanes(["10.0.0.7"]), []);
        } finally {
          other.close();
        }
        assert.deepEqual(store.controlPlaneAddresses(), ["10.0.0.7"]);
      });
    });
  });
});
