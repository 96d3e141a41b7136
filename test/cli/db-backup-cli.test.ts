import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import Database from "better-sqlite3";
import { StoreKeys } from "../../src/store/core/store-keys.js";
import type { KeyRange } from "../../src/store/kv/kv-driver.js";
import { entryValue } from "../../src/store/core/value-schemas.js";
import { decodeHistory } from "../../src/store/core/history-value.js";
import { SQLITE_KV_PREFIX } from "../../src/store/kv/sqlite/sqlite-kv-schema.js";
import { runCli } from "../support/run-cli.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { graphqlData, serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

/** A repair procedure, so that entries for qemu machines can be added. */
const CONFIG = (database: string) =>
  `listen: "127.0.0.1:0"\ndatabase: ${database}\nrepair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n` +
  `        - operation: unreachable\n          repair_steps: [{ repair_command: ["true"] }]\n          health_check_command: [echo, "true"]\n`;

async function stop(server: ServeProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM");
  await server.exited;
}

/** Adds an entry for 10.1.x.y through the API; returns its index. */
async function addEntry(url: string, n: number): Promise<number> {
  const address = `10.1.${Math.floor(n / 250)}.${(n % 250) + 1}`;
  const data = await graphqlData<{ addRepairEntry: { index: string } }>(
    url,
    `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "${address}") { index } }`,
  );
  return Number(data.addRepairEntry.index);
}

const KEYS = new StoreKeys(SQLITE_KV_PREFIX);

/**
 * The entries and the history (by sequence) a SQLite file holds, read from its key-value table with a plain read-only
 * connection and checked against the values' schemas.
 */
function rowsOf(file: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const values = (range: KeyRange) =>
      (db.prepare("SELECT value FROM kv WHERE key >= ? AND key < ? ORDER BY key").pluck().all(range.start, range.end) as Buffer[]).map(
        (value) => JSON.parse(value.toString("utf8")) as unknown,
      );
    return {
      entries: values(KEYS.allEntries).map((value) => entryValue.parse(value).entry),
      history: (
        db.prepare("SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key").all(KEYS.allHistory.start, KEYS.allHistory.end) as Array<{
          key: string;
          value: Buffer;
        }>
      )
        .map(({ key, value }) => {
          const parsed = KEYS.parse(key);
          assert.equal(parsed.kind, "history", key);
          return decodeHistory(key, (parsed as { index: number }).index, (parsed as { sequence: number }).sequence, value).record;
        })
        .sort((a, b) => a.sequence - b.sequence),
    };
  } finally {
    db.close();
  }
}

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("kintsugi db backup while kintsugi serves (a real server and backup; the other db commands in-process)", () => {
  let dir: ReturnType<typeof tempDir>;
  const servers: ServeProcess[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await stop(server);
    dir.remove();
  });

  it("copies a consistent prefix of what a client keeps adding, the copy passes db check, and kintsugi serves it", async () => {
    dir = tempDir();
    writeFileSync(join(dir.path, "k.yaml"), CONFIG("./data/kintsugi.db"));
    const live = serveProcess(["--config", "k.yaml"], dir.path);
    servers.push(live);
    const url = await live.url;
    // The runner leaves the entries alone (it would spawn health checks for each): the client's writes are the load.
    await graphqlData(url, "mutation { setRepairQueueEnabled(enabled: false) }");

    // One client adds entries one after another, each acknowledged before the next, until told to stop.
    const acked: number[] = [];
    let phase: "before" | "during" | "after" = "before";
    const ackedIn = { before: 0, during: 0, after: 0 };
    let stopping = false;
    const writer = (async () => {
      for (let n = 0; !stopping; n++) {
        const index = await addEntry(url, n);
        acked.push(index);
        ackedIn[phase]++;
      }
    })();
    await until("the writer has 10 entries acknowledged", () => acked.length >= 10);

    const ackedBeforeBackup = acked.length;
    phase = "during";
    // A child process: in this one, the backup's synchronous copy would stop the writer below while it runs.
    const backup = await runCli(["db", "backup", "backups/kintsugi.db", "--config", "k.yaml"], { cwd: dir.path });
    phase = "after";
    const ackedWhenBackupEnded = acked.length;
    await until("the writer has 3 more entries acknowledged after the backup", () => acked.length >= ackedWhenBackupEnded + 3);
    stopping = true;
    await writer;

    const copy = join(dir.path, "backups", "kintsugi.db");
    assert.equal(backup.stderr, "");
    assert.equal(backup.code, 0);
    assert.match(
      backup.stdout,
      new RegExp(`^backed up sqlite:${join(dir.path, "data", "kintsugi.db")} -> ${copy}, checked\\n  schema version \\d+ \\(this kintsugi's\\)\\n`),
    );
    assert.ok(ackedIn.during > 0, "kintsugi went on acknowledging entries while the backup ran");
    assert.deepEqual(readdirSync(join(dir.path, "backups")), ["kintsugi.db"], "one file, nothing left beside it");

    // A consistent prefix: every entry acknowledged before the backup started is there; none is missing whose successor
    // is there; the ones left out were acknowledged after the backup started.
    const { entries, history } = rowsOf(copy);
    assert.deepEqual(acked, oneToN(acked.length), "the client's entries got indexes 1..N");
    const copied = entries.length;
    assert.deepEqual(
      entries.map((e) => e.index),
      oneToN(copied),
      "no entry missing whose successor is in the copy",
    );
    assert.ok(copied >= ackedBeforeBackup, `every entry acknowledged before the backup started is in the copy (${copied} >= ${ackedBeforeBackup})`);
    assert.ok(copied < acked.length, "the entries acknowledged after the backup ended are not");
    assert.ok(entries.every((e, i) => e.address === `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`));
    // No torn history: the history is a prefix too, every entry has its creation, and each entry is as its last record says.
    assert.deepEqual(
      history.map((h) => h.sequence),
      oneToN(history.length),
      "no history record missing whose successor is in the copy",
    );
    assert.ok(
      history.every((h) => h.entryIndex <= copied),
      "no history of an entry the copy does not hold",
    );
    for (const e of entries) {
      const own = history.filter((h) => h.entryIndex === e.index);
      assert.equal(own[0]?.kind, "created", `entry ${e.index} has its creation`);
      const last = own.at(-1);
      assert.deepEqual(
        [last?.status, last?.step, last?.stepStatus, last?.deleted],
        [e.status, e.step, e.stepStatus, e.deleted],
        `entry ${e.index} is as its last history record says`,
      );
    }

    const check = await runCliInProcess(["db", "check", copy]);
    assert.equal(check.code, 0, check.stderr);
    assert.match(
      check.stdout,
      new RegExp(`^${copy}: ok\\n  integrity ok, foreign keys ok\\n  schema version \\d+ \\(this kintsugi's\\)\\n  repair entries +${copied}\\n`),
    );
    assert.equal(
      /sha256 ([0-9a-f]{64})/.exec(check.stdout)?.[1],
      /sha256 ([0-9a-f]{64})/.exec(backup.stdout)?.[1],
      "db check and db backup agree on the sha256",
    );

    writeFileSync(join(dir.path, "copy.yaml"), CONFIG("./backups/kintsugi.db"));
    const fromCopy = serveProcess(["--config", "copy.yaml"], dir.path);
    servers.push(fromCopy);
    const served = await graphqlData<{ searchRepairEntries: Array<{ index: string; address: string; status: string }> }>(
      await fromCopy.url,
      "{ searchRepairEntries { index address status } }",
    );
    assert.deepEqual(
      served.searchRepairEntries.map((e) => ({ ...e, index: Number(e.index) })),
      entries.map((e) => ({ index: e.index, address: e.address, status: e.status.toUpperCase() })),
    );
  });

  it("refuses to restore while kintsugi serves the database, saying how to stop it; once stopped, restores and keeps the old one", async () => {
    dir = tempDir();
    writeFileSync(join(dir.path, "k.yaml"), CONFIG("./data/kintsugi.db"));
    const live = serveProcess(["--config", "k.yaml"], dir.path);
    servers.push(live);
    const url = await live.url;
    await addEntry(url, 0);
    assert.equal((await runCliInProcess(["db", "backup", "b.db", "--config", "k.yaml"], { cwd: dir.path })).code, 0);
    await addEntry(url, 1);

    const database = join(dir.path, "data", "kintsugi.db");
    const listing = readdirSync(join(dir.path, "data"));
    const refused = await runCliInProcess(["db", "restore", "b.db", "--config", "k.yaml"], { cwd: dir.path });
    assert.deepEqual([refused.code, refused.stdout], [1, ""]);
    assert.equal(
      refused.stderr,
      `kintsugi: database ${database} is in use by a running kintsugi (pid ${live.child.pid}), which holds its lock file ${database}.lock; nothing was changed. ` +
        `Stop it first (systemctl stop kintsugi, or kill -TERM ${live.child.pid}: it finishes what is in flight and exits), then restore\n`,
    );
    assert.deepEqual(readdirSync(join(dir.path, "data")), listing);
    assert.equal(
      (await graphqlData<{ searchRepairEntries: unknown[] }>(url, "{ searchRepairEntries { index } }")).searchRepairEntries.length,
      2,
      "it keeps serving",
    );

    await stop(live);
    const restored = await runCliInProcess(["db", "restore", "b.db", "--config", "k.yaml"], { cwd: dir.path });
    assert.equal(restored.stderr, "");
    assert.equal(restored.code, 0);
    const kept = /kept as (\S+)\n/.exec(restored.stdout)?.[1] ?? "";
    assert.match(kept, new RegExp(`^${database}\\.before-restore-\\d{8}T\\d{6}Z$`));
    assert.match(
      restored.stdout,
      new RegExp(`^restored ${join(dir.path, "b.db")} as the database ${database}\n  the database it replaced is kept as ${kept}\n`),
    );
    assert.match(restored.stdout, /\nstart kintsugi again to serve it\n$/);
    assert.equal(rowsOf(kept).entries.length, 2, "the old database is kept whole");

    const again = serveProcess(["--config", "k.yaml"], dir.path);
    servers.push(again);
    const served = await graphqlData<{ searchRepairEntries: Array<{ address: string }> }>(await again.url, "{ searchRepairEntries { address } }");
    assert.deepEqual(served.searchRepairEntries, [{ address: "10.1.0.1" }], "kintsugi serves the backup");
  });
});
