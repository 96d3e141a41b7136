import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NEWEST_SCHEMA_VERSION } from "../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { testEtcdClient } from "../support/etcd-clients.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { graphqlData, serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";

const REPAIR = `repair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n        - operation: unreachable\n          repair_steps: [{ repair_command: ["true"] }]\n          health_check_command: [echo, "true"]\n`;

async function stop(server: ServeProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM");
  await server.exited;
}

const sha = (text: string) => /sha256 ([0-9a-f]{64})/.exec(text)?.[1];

/** `kintsugi db backup` and `db check` on store: etcd, against a real etcd with a replica serving on it. */
describe("kintsugi db backup with store: etcd (the db commands in-process)", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let dir: ReturnType<typeof tempDir>;
  let replica: ServeProcess;
  let url = "";
  const prefix = `/db-backup-${process.pid}/`;

  before(async () => {
    etcd = await startTestEtcd();
    dir = tempDir();
    writeFileSync(
      join(dir.path, "k.yaml"),
      `listen: "127.0.0.1:0"\nstore: etcd\netcd:\n  endpoints: ["${etcd.endpoints[0]}"]\n  prefix: ${prefix}\n  timeout: 5s\n${REPAIR}`,
    );
    replica = serveProcess(["--config", "k.yaml"], dir.path);
    url = await replica.url;
    // The runner leaves the entries alone, so that nothing is written between the backup and the check.
    await graphqlData(url, "mutation { setRepairQueueEnabled(enabled: false) }");
    for (const address of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) {
      await graphqlData(url, `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "${address}") { index } }`);
    }
    // The leader's pass then publishes why the three entries wait: a write that landing between the backup and the
    // checks would change the store's sha256. The test begins once it has landed.
    const client = testEtcdClient(etcd.endpoints);
    try {
      await until(
        "the leader has published why the three entries wait",
        async () => (JSON.parse((await client.get(`${prefix}settings/repair-waits`).string()) ?? "{}") as { value?: unknown[] }).value?.length,
        (published) => published === 3,
      );
    } finally {
      client.close();
    }
  });
  after(async () => {
    if (replica) await stop(replica);
    await etcd?.stop();
    dir?.remove();
  });

  it("backs the store up into a SQLite file while the replica runs; db check of etcd and of the file agree; kintsugi serves the file", async () => {
    const onEtcd = `etcd prefix ${prefix} on ${etcd.endpoints[0]}`;
    const backup = await runCliInProcess(["db", "backup", "backups/etcd.db", "--config", "k.yaml"], { cwd: dir.path });
    assert.equal(backup.stderr, "");
    assert.equal(backup.code, 0);
    const out = join(dir.path, "backups", "etcd.db");
    assert.match(
      backup.stdout,
      new RegExp(`^backed up ${onEtcd} -> ${out}, checked\\n  schema version ${NEWEST_SCHEMA_VERSION} \\(this kintsugi's\\)\\n  repair entries      3\\n`),
    );
    assert.deepEqual(readdirSync(join(dir.path, "backups")), ["etcd.db"]);

    const ofEtcd = await runCliInProcess(["db", "check", "--config", "k.yaml"], { cwd: dir.path });
    assert.equal(ofEtcd.code, 0, ofEtcd.stderr);
    assert.match(ofEtcd.stdout, new RegExp(`^${onEtcd}: ok\\n  repair entries      3\\n`));
    const ofFile = await runCliInProcess(["db", "check", out]);
    assert.equal(ofFile.code, 0, ofFile.stderr);
    assert.ok(sha(backup.stdout) !== undefined);
    assert.deepEqual([sha(ofEtcd.stdout), sha(ofFile.stdout)], [sha(backup.stdout), sha(backup.stdout)], "one sha256 for the store, the backup and its check");

    writeFileSync(join(dir.path, "file.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./backups/etcd.db\n${REPAIR}`);
    const fromFile = serveProcess(["--config", "file.yaml"], dir.path);
    try {
      const served = await graphqlData<{ searchRepairEntries: Array<{ address: string; status: string }> }>(
        await fromFile.url,
        "{ searchRepairEntries { address status } }",
      );
      assert.deepEqual(
        served.searchRepairEntries,
        ["10.0.0.1", "10.0.0.2", "10.0.0.3"].map((address) => ({ address, status: "QUEUED" })),
      );
    } finally {
      await stop(fromFile);
    }
  });

  it("does not restore into etcd itself: says how, with db copy", async () => {
    const res = await runCliInProcess(["db", "restore", "backups/etcd.db", "--config", "k.yaml"], { cwd: dir.path });
    assert.deepEqual([res.code, res.stdout], [1, ""]);
    assert.equal(
      res.stderr,
      `kintsugi: the config's store is etcd (prefix ${prefix}); restore a backup into etcd with kintsugi db copy --from sqlite:backups/etcd.db --to etcd ` +
        `--config k.yaml, after stopping every replica and emptying the prefix (etcdctl del --prefix ${prefix})\n`,
    );
  });
});
