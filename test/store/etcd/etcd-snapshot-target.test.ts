import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { CopyFailedError, copyStore } from "../../../src/store/copy/copy-store.js";
import { TargetNotEmptyError, type SnapshotItem, type SnapshotSource, type SnapshotTarget } from "../../../src/store/copy/store-snapshot.js";
import { openEtcdSnapshotTarget, openSqliteSnapshotSource } from "../../../src/store/copy/snapshot-access.js";
import { openEtcdStore } from "../../../src/store/kv/etcd/open-etcd-store.js";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { writeRealisticHistory } from "../../support/realistic-store.js";
import { tempDir } from "../../support/temp-dir.js";
import { suiteEtcd } from "../../support/suite-etcd.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";

/** The guards of a copy into etcd against something else writing to the prefix meanwhile. */
describe("an etcd prefix as the target of a copy", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("target");
  let dir: ReturnType<typeof tempDir>;
  let prefix = "";

  afterEach(() => dir.remove());

  const fresh = async (): Promise<string> => {
    dir = tempDir();
    prefix = suite.freshPrefix();
    const source = join(dir.path, "source.db");
    const store = await openSqliteStore({ path: source });
    await writeRealisticHistory(store);
    await store.close();
    return source;
  };
  const etcdAt = () => ({ client: suite.client, prefix, endpoints: suite.etcd.endpoints, timeoutMs: 5000 });
  const copy = async (source: SnapshotSource, target: SnapshotTarget) => {
    try {
      return await copyStore(source, target);
    } finally {
      await target.close();
      await source.close();
    }
  };
  const keysUnder = async (at: string) => Object.keys(await suite.client.getAll().prefix(at).strings()).sort();

  it("begins no copy into an etcd prefix that a replica starts on between the emptiness check and the marker", async () => {
    const source = await fresh();
    const real = openEtcdSnapshotTarget(etcdAt());
    const raced = Object.assign(Object.create(real) as SnapshotTarget, {
      checkEmpty: async () => {
        await real.checkEmpty();
        await (await openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix })).close();
      },
    });
    await assert.rejects(
      copy(await openSqliteSnapshotSource(source), raced),
      (err: Error) =>
        err instanceof TargetNotEmptyError && err.message === `the etcd prefix ${prefix} got data while the copy began; copy only into an empty store`,
    );
    assert.deepEqual(await keysUnder(prefix), [`${prefix}schema`], "no marker, no data: only what the replica wrote");
  });

  it("stops writing into an etcd prefix whose copy marker was removed under it", async () => {
    const source = await fresh();
    const real = openEtcdSnapshotTarget(etcdAt());
    let chunks = 0;
    const unmarked = Object.assign(Object.create(real) as SnapshotTarget, {
      chunkLimits: { items: 3, bytes: 1024 * 1024 },
      writeChunk: async (items: readonly SnapshotItem[]) => {
        if (++chunks === 2) await suite.client.delete().key(`${prefix}copy-in-progress`);
        await real.writeChunk(items);
      },
    });
    await assert.rejects(
      copy(await openSqliteSnapshotSource(source), unmarked),
      (err: Error) => err instanceof CopyFailedError && err.message.includes(`the copy marker ${prefix}copy-in-progress was removed or replaced while writing`),
    );
    assert.equal(chunks, 2, "no chunk after the one that found the marker gone");
    assert.equal((await keysUnder(prefix)).filter((k) => !k.endsWith("/schema")).length, 3, "only the first chunk landed");
  });
});
