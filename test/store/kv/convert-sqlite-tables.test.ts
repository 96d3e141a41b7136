import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { seedHistory } from "../../../bench/history-seed.js";
import { checkDatabaseFile } from "../../../src/store/copy/database-check.js";
import { checkSnapshotItem } from "../../../src/store/copy/snapshot-digest.js";
import { putsOf } from "../../../src/store/copy/snapshot-target.js";
import { UnfinishedCopyError } from "../../../src/store/copy/copy-marker.js";
import { StoreKeys } from "../../../src/store/core/store-keys.js";
import { StoreMirror } from "../../../src/store/core/store-mirror.js";
import { STORE_SCHEMA_VERSION, encodeValue } from "../../../src/store/core/store-values.js";
import { CONVERSION_WRITE_ID, convertTablesToKv } from "../../../src/store/kv/sqlite/old-tables/convert-sqlite-tables.js";
import { convertingFile, convertOldFile } from "../../../src/store/kv/sqlite/old-tables/convert-sqlite-file.js";
import { openSqliteKvDriver } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { SQLITE_KV_PREFIX } from "../../../src/store/kv/sqlite/sqlite-kv-schema.js";
import { openDatabase, schemaVersion } from "../../../src/store/kv/sqlite/database.js";
import { DatabaseOpenError } from "../../../src/store/store-errors.js";
import { MIGRATIONS } from "../../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { sqliteSnapshotItems } from "../../../src/store/kv/sqlite/old-tables/sqlite-snapshot-export.js";
import { logTo } from "../../../src/support/log.js";
import { NOW } from "../../support/fixtures.js";
import { tamper } from "../../support/damaged-databases.js";
import { STORE_FIXTURE_DB } from "../../support/store-fixture-reads.js";
import { tempDir } from "../../support/temp-dir.js";
import { typescriptArgs } from "../../support/typescript-child.js";

const KEYS = new StoreKeys(SQLITE_KV_PREFIX);
const CHILD = fileURLToPath(new URL("../../support/kv-conversion-child.ts", import.meta.url));
const RELEASED = JSON.parse(readFileSync(new URL("db-check.json", STORE_FIXTURE_DB), "utf8")) as { madeBy: string; counts: object; sha256: string };

interface KvRow {
  key: string;
  value: Buffer;
  create_revision: number;
  mod_revision: number;
}

/** A copy of the committed store-v1 fixture (schema version 11) in `dir`: the fixture itself is never written. */
function fixtureCopy(dir: string, name = "kintsugi.db"): string {
  const file = join(dir, name);
  copyFileSync(STORE_FIXTURE_DB, file);
  return file;
}

function readOnly<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const kvRows = (file: string) => readOnly(file, (db) => db.prepare("SELECT * FROM kv ORDER BY key").all() as KvRow[]);
const tables = (file: string) => readOnly(file, (db) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all());
const versionOf = (file: string) => readOnly(file, (db) => schemaVersion(db));

/** What the conversion must write for `file` (an old-format file, not changed): each item's putsOf, and the heads. */
async function expectedPairs(file: string): Promise<Array<{ key: string; value: string }>> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const pairs = [{ key: KEYS.schema, value: JSON.stringify({ v: STORE_SCHEMA_VERSION }) }];
  try {
    for await (const item of sqliteSnapshotItems(db, file)) pairs.push(...putsOf(KEYS, checkSnapshotItem(item, file), CONVERSION_WRITE_ID));
  } finally {
    db.close();
  }
  pairs.push(
    { key: KEYS.recordsHead, value: encodeValue({ w: CONVERSION_WRITE_ID, next: 3 }) },
    { key: KEYS.holdsHead, value: encodeValue({ w: CONVERSION_WRITE_ID, changes: [] }) },
  );
  return pairs.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
}

/** The counts and hash `kintsugi db check` gives for `file`, and its problems. */
async function checked(file: string) {
  const check = await checkDatabaseFile(file);
  return { counts: check.summary?.counts ?? null, sha256: check.summary?.sha256 ?? null, problems: check.problems };
}

describe("convertOldFile: the old SQLite tables become the store core's one key-value table, in a new file that replaces the old", () => {
  it("converts the store-v1 fixture: every item as putsOf writes it, the schema key, the heads, all at revision 1, and no old table left", async () => {
    const dir = tempDir();
    try {
      const file = fixtureCopy(dir.path);
      const reference = fixtureCopy(dir.path, "reference.db");
      openDatabase(reference).close(); // brought to schema version 12, as the conversion reads it
      const expected = await expectedPairs(reference);

      convertOldFile(file);

      const rows = kvRows(file);
      assert.deepEqual(
        rows.map((r) => ({ key: r.key, value: r.value.toString("utf8") })),
        expected,
      );
      assert.ok(
        rows.every((r) => Buffer.isBuffer(r.value) && r.create_revision === 1 && r.mod_revision === 1),
        "every pair a BLOB at revision 1",
      );
      const heads = Object.fromEntries(
        rows.filter((r) => !r.key.slice(SQLITE_KV_PREFIX.length).includes("/")).map((r) => [r.key, JSON.parse(r.value.toString("utf8"))]),
      );
      const w = CONVERSION_WRITE_ID;
      assert.deepEqual(heads, {
        "/kintsugi/schema": { v: 2 },
        "/kintsugi/queue": { v: 1, w, nextIndex: 8, nextSequence: 17 },
        "/kintsugi/outcomes-head": { v: 1, w, next: 4 },
        "/kintsugi/generations-head": { v: 1, w, next: 6 },
        "/kintsugi/records-head": { v: 1, w, next: 3 },
        "/kintsugi/holds-head": { v: 1, w, changes: [] },
      });
      readOnly(file, (db) => {
        assert.equal(db.prepare("SELECT revision FROM kv_revision").pluck().get(), 1);
        assert.deepEqual(db.prepare("SELECT version FROM schema_version ORDER BY version").pluck().all(), [...MIGRATIONS.map((m) => m.version), 13]);
        assert.equal(db.pragma("auto_vacuum", { simple: true }), 2, "the new file gives freed pages back (incremental auto_vacuum)");
      });
      assert.deepEqual(tables(file), ["kv", "kv_revision", "schema_version"]);
      assert.ok(!existsSync(convertingFile(file)), "the new file took the old one's name");
    } finally {
      dir.remove();
    }
  });

  const headCases: ReadonlyArray<{ name: string; change: string; records: number | null; holdsHead: boolean }> = [
    { name: "as the fixture holds them", change: "", records: 3, holdsHead: true },
    {
      name: "every replay record pruned: the records head goes on past the sequences handed out",
      change: "DELETE FROM poll_records",
      records: 3,
      holdsHead: true,
    },
    {
      name: "no replay record ever kept, no hold: neither head, as in a store that never wrote one",
      change: "DELETE FROM poll_records; DELETE FROM sqlite_sequence WHERE name = 'poll_records'; DELETE FROM machine_holds",
      records: null,
      holdsHead: false,
    },
  ];
  for (const { name, change, records, holdsHead } of headCases) {
    it(`writes the records and holds heads the etcd store's writes would leave: ${name}`, () => {
      const dir = tempDir();
      try {
        const file = fixtureCopy(dir.path);
        openDatabase(file).close();
        tamper(file, (db) => db.exec(change));
        convertOldFile(file);
        const value = (key: string) => {
          const row = kvRows(file).find((r) => r.key === key);
          return row === undefined ? undefined : JSON.parse(row.value.toString("utf8"));
        };
        assert.deepEqual(value(KEYS.recordsHead), records === null ? undefined : { v: 1, w: CONVERSION_WRITE_ID, next: records });
        assert.deepEqual(value(KEYS.holdsHead), holdsHead ? { v: 1, w: CONVERSION_WRITE_ID, changes: [] } : undefined);
      } finally {
        dir.remove();
      }
    });
  }

  it("makes a new file a store holding the schema key and the counters' heads at 1, at revision 1", () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "new.db");
      convertOldFile(file);
      const w = CONVERSION_WRITE_ID;
      assert.deepEqual(
        kvRows(file).map((r) => [r.key, JSON.parse(r.value.toString("utf8")), r.create_revision, r.mod_revision]),
        [
          ["/kintsugi/generations-head", { v: 1, w, next: 1 }, 1, 1],
          ["/kintsugi/outcomes-head", { v: 1, w, next: 1 }, 1, 1],
          ["/kintsugi/queue", { v: 1, w, nextIndex: 1, nextSequence: 1 }, 1, 1],
          ["/kintsugi/schema", { v: 2 }, 1, 1],
        ],
      );
      assert.equal(versionOf(file), 13);
    } finally {
      dir.remove();
    }
  });

  it("reads exactly what the store-v1 release's db check hashed: its counts and sha256", () => {
    const dir = tempDir();
    try {
      const db = openDatabase(fixtureCopy(dir.path));
      try {
        const target = new Database(":memory:");
        const summary = target.transaction(() => convertTablesToKv(db, target))();
        assert.deepEqual({ counts: summary.counts, sha256: summary.sha256 }, { counts: RELEASED.counts, sha256: RELEASED.sha256 });
        target.close();
      } finally {
        db.close();
      }
    } finally {
      dir.remove();
    }
  });

  it("leaves a store the etcd store's mirror loads without a complaint, its heads and aggregates as the fixture holds them", () => {
    const dir = tempDir();
    try {
      const file = fixtureCopy(dir.path);
      convertOldFile(file);
      const rows = kvRows(file);
      const complaints: string[] = [];
      const mirror = new StoreMirror(
        KEYS,
        logTo((level, message) => complaints.push(`${level}: ${message}`)),
      );
      const held = rows.filter((r) => KEYS.parse(r.key).kind !== "history");
      mirror.load(
        held.map((r) => ({ type: "put", key: r.key, value: r.value, modRevision: r.mod_revision })),
        1,
        held.length < rows.length,
      );
      assert.deepEqual(complaints, []);
      assert.deepEqual(
        {
          queue: mirror.queueHead,
          outcomes: mirror.outcomesHead?.value?.next,
          generations: mirror.generationsHead?.value?.next,
          records: mirror.recordsHead?.value?.next,
          holdsHead: mirror.holdsHead?.modRevision,
          queueStarted: mirror.queueStarted,
        },
        {
          queue: { value: { v: 1, w: CONVERSION_WRITE_ID, nextIndex: 8, nextSequence: 17 }, modRevision: 1 },
          outcomes: 4,
          generations: 6,
          records: 3,
          holdsHead: 1,
          queueStarted: true,
        },
      );
      assert.deepEqual(
        {
          entries: mirror.entryList().map((e) => e.index),
          outcomes: mirror.outcomeCount(),
          generations: mirror.generationList().length,
          holds: mirror.holdList().map((h) => h.address),
          settings: mirror.settings.size,
          records: mirror.records.size().records,
        },
        { entries: [1, 2, 3, 6], outcomes: 3, generations: 5, holds: ["10.0.0.11", "10.0.0.9", "fd00::9"], settings: 10, records: 2 },
      );
    } finally {
      dir.remove();
    }
  });

  it("runs once: the schema version moved on to 13, opening again converts nothing, and the old code refuses the file", async () => {
    const dir = tempDir();
    try {
      const file = fixtureCopy(dir.path);
      convertOldFile(file);
      const converted = kvRows(file);
      await openSqliteKvDriver(file, { conversion: () => assert.fail("converted twice") }).close();
      assert.equal(versionOf(file), 13);
      assert.deepEqual(kvRows(file), converted);
      assert.throws(() => openDatabase(file, MIGRATIONS), {
        name: "DatabaseOpenError",
        message: /has schema version 13, newer than this kintsugi knows \(12\)/,
      });
    } finally {
      dir.remove();
    }
  });

  it("refuses a file another process holds open (its WAL not empty: it would apply to the new file), and leaves it as it was", async () => {
    const dir = tempDir();
    try {
      const file = fixtureCopy(dir.path);
      const other = new Database(file);
      try {
        other.pragma("journal_mode = WAL");
        assert.throws(() => convertOldFile(file), { name: "DatabaseOpenError", message: /another process has it open \(its WAL .* is not empty\)/ });
        assert.ok(!tables(file).includes("kv"));
        assert.ok(!existsSync(convertingFile(file)), "the new file removed");
      } finally {
        other.close();
      }
      convertOldFile(file);
      assert.equal(versionOf(file), 13);
    } finally {
      dir.remove();
    }
  });

  it("refuses a file holding an unfinished copy, as the store's open does, and leaves what it holds as it was", async () => {
    const dir = tempDir();
    try {
      const file = fixtureCopy(dir.path);
      const marked = openDatabase(file);
      marked
        .prepare("INSERT INTO copy_in_progress (id, copy_id, source, started_at) VALUES (1, 'c1', 'etcd prefix /kintsugi/', '2026-11-22T05:00:00.250Z')")
        .run();
      marked.close();
      const before = await checked(file);
      assert.throws(
        () => convertOldFile(file),
        (err: Error) => {
          assert.ok(err instanceof UnfinishedCopyError, `${err.name}: ${err.message}`);
          assert.match(err.message, /holds an unfinished copy from etcd prefix \/kintsugi\/ started at 2026-11-22T05:00:00.250Z/);
          return true;
        },
      );
      assert.equal(versionOf(file), 12);
      assert.ok(!tables(file).includes("kv"));
      assert.deepEqual(await checked(file), before);
    } finally {
      dir.remove();
    }
  });

  const hostile: ReadonlyArray<{ name: string; change: string; names: RegExp }> = [
    {
      name: "an entry whose address is an option",
      change: "UPDATE repair_entries SET address = '-rf' WHERE idx = 2",
      names:
        /repair entry 2 would not be readable in the store: store key \/kintsugi\/entries\/0000000000000002 holds an invalid value at entry\.address: must be an IP address/,
    },
    {
      name: "a setting that is not JSON",
      change: "UPDATE settings SET value = '{' WHERE key = 'constraints'",
      names: /the setting constraints cannot be read/,
    },
    {
      name: "a history record of no status",
      change: `INSERT INTO repair_history (entry_index, time, kind, reason, detail, status, step, step_status, deleted, actor)
        VALUES (3, ${NOW}, 'note', 'x', NULL, 'bogus', 0, 'waiting', 0, 'kintsugi')`,
      names: /history record 17 \(repair entry 3\) cannot be copied: record\.status/,
    },
    {
      name: "a replay record that is not deflated",
      change: "UPDATE poll_records SET body = X'00FF' WHERE seq = 1",
      names: /the replay record 1 cannot be read/,
    },
  ];
  for (const { name, change, names } of hostile) {
    it(`fails on ${name}, naming the row, and leaves the file unconverted`, async () => {
      const dir = tempDir();
      try {
        const file = fixtureCopy(dir.path);
        openDatabase(file).close();
        tamper(file, (db) => db.exec(change));
        const before = await checked(file);
        assert.throws(
          () => convertOldFile(file),
          (err: Error) => {
            assert.ok(err instanceof DatabaseOpenError, `${err.name}: ${err.message}`);
            assert.ok(
              err.message.startsWith(
                `cannot open database ${file}: the old tables cannot be converted to the key-value table (the file is left unconverted): sqlite:${file}: `,
              ),
              err.message,
            );
            assert.match(err.message, names);
            return true;
          },
        );
        assert.equal(versionOf(file), 12);
        assert.ok(!tables(file).includes("kv"));
        assert.deepEqual(await checked(file), before, "db check finds what it found before");
      } finally {
        dir.remove();
      }
    });
  }

  it("survives a crash midway (SIGKILL): the old file opens with today's code, db check gives the same counts and hash, and converting again succeeds", async () => {
    const dir = tempDir();
    try {
      const file = fixtureCopy(dir.path);
      const db = openDatabase(file);
      seedHistory(db, 20_000, NOW);
      // The seeded history is of dequeued entries 1..2000: the queue's counter goes on past them, as it would have.
      db.prepare("UPDATE sqlite_sequence SET seq = 2000 WHERE name = 'repair_entries'").run();
      db.close();
      const before = await checked(file);
      assert.deepEqual(before.problems, []);

      const child = spawn(process.execPath, [...typescriptArgs(CHILD), file, "10000"], { stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      const exited = once(child, "exit");
      const lines = createInterface({ input: child.stdout });
      const paused = await new Promise<string>((resolve, reject) => {
        lines.on("line", resolve);
        child.on("exit", (code, signal) => reject(new Error(`the child ended (${code ?? signal}) before it paused: ${stderr}`)));
      });
      assert.equal(paused, "paused mid-conversion after 10000 rows");
      child.kill("SIGKILL");
      const [, signal] = await exited;
      assert.equal(signal, "SIGKILL");

      const reopened = openDatabase(file, MIGRATIONS);
      try {
        assert.equal(schemaVersion(reopened), 12);
      } finally {
        reopened.close();
      }
      assert.ok(!tables(file).includes("kv"), "nothing of the conversion was committed");
      assert.ok(existsSync(convertingFile(file)), "the half-written new file is beside the old one");
      assert.deepEqual(await checked(file), before);

      convertOldFile(file);
      assert.ok(!existsSync(convertingFile(file)), "the next conversion removed the half-written file");
      assert.equal(versionOf(file), 13);
      const history = kvRows(file).filter((r) => KEYS.parse(r.key).kind === "history").length;
      assert.equal(history, (before.counts as { history: number }).history);
    } finally {
      dir.remove();
    }
  });
});
