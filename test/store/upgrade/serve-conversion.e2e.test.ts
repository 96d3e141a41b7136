import assert from "node:assert/strict";
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { seedHistory } from "../../../bench/history-seed.js";
import { convertingFile } from "../../../src/store/kv/sqlite/old-tables/convert-sqlite-file.js";
import { openDatabase } from "../../../src/store/kv/sqlite/database.js";
import { NOW } from "../../support/fixtures.js";
import { graphqlData, serveProcess, type ServeProcess } from "../../support/serve-process.js";
import { STORE_FIXTURE_DB } from "../../support/store-fixture-reads.js";
import { tempDir } from "../../support/temp-dir.js";

const CONFIG = `listen: "127.0.0.1:0"\ndatabase: ./kintsugi.db\n`;

describe("kintsugi serve's first start on a file of the old tables (the real binary)", () => {
  const dir = tempDir();
  let server: ServeProcess | null = null;
  after(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    dir.remove();
  });

  it("logs the conversion's rows done and time left as it goes and its end, then serves the history as it was", async () => {
    const file = join(dir.path, "kintsugi.db");
    copyFileSync(STORE_FIXTURE_DB, file);
    const db = openDatabase(file);
    seedHistory(db, 20_000, NOW);
    db.prepare("UPDATE sqlite_sequence SET seq = 2000 WHERE name = 'repair_entries'").run();
    // A seeded repair (dequeued: the runner leaves it alone), its records as the old table holds them.
    const seeded = (
      db.prepare("SELECT seq, time, reason, status, step, step_status, actor FROM repair_history WHERE entry_index = 100 ORDER BY seq").all() as Array<{
        seq: number;
        time: number;
        reason: string;
        status: string;
        step: number;
        step_status: string;
        actor: string;
      }>
    ).map((r) => ({
      sequence: String(r.seq),
      time: new Date(r.time).toISOString(),
      reason: r.reason,
      status: r.status.toUpperCase(),
      step: r.step,
      stepStatus: r.step_status.toUpperCase(),
      actor: r.actor,
    }));
    db.close();
    writeFileSync(join(dir.path, "k.yaml"), CONFIG);

    server = serveProcess(["--config", "k.yaml"], dir.path);
    const url = await server.url;
    const records = server.logRecords();
    const started = records.findIndex((r) => r.msg.startsWith("converting the SQLite file of an older kintsugi"));
    assert.ok(started >= 0, "the conversion says it starts");
    const progress = records.filter((r) => r.msg.startsWith(`converting ${file}: `));
    const end = progress.at(-1);
    assert.ok(end, "the conversion logs its progress");
    assert.match(end.msg, /: [\d,]+ rows, done in \d+ s$/);
    assert.equal(end["rowsDone"], end["rows"], "every row of the old tables converted");
    assert.ok((end["rows"] as number) >= 20_000);
    for (const line of progress.slice(0, -1)) {
      assert.match(line.msg, /: [\d,]+ of [\d,]+ rows \(\d+%\), (\d+ s|\d+ min \d+ s|time left unknown yet) left?/);
      assert.equal(typeof line["rowsDone"], "number");
    }
    assert.ok(records.indexOf(end) < records.findIndex((r) => r.msg === "kintsugi started"), "all before the server starts");

    const history = await graphqlData<{ repairHistory: unknown[] }>(
      url,
      '{ repairHistory(index: "100") { sequence time reason status step stepStatus actor } }',
    );
    assert.deepEqual(history.repairHistory, seeded, "the history of a seeded repair, as the old table held it");
    assert.ok(!existsSync(convertingFile(file)), "the new file took the old one's name");
    const converted = new Database(file, { readonly: true });
    try {
      assert.equal(converted.pragma("auto_vacuum", { simple: true }), 2, "the file gives freed pages back");
    } finally {
      converted.close();
    }
  });
});
