// A process that converts the old-format SQLite file argv[2] to the key-value table (migration 13) and, once it has
// written argv[3] pairs inside the migration's transaction, says so on stdout and blocks: the crash test kills it
// there. Should nobody kill it, it fails the conversion rather than commit it.
import { writeSync } from "node:fs";
import { convertTablesToKv, KV_CONVERSION_MIGRATION } from "../../src/store/kv/sqlite/old-tables/convert-sqlite-tables.js";
import { openDatabase } from "../../src/store/kv/sqlite/database.js";
import { MIGRATIONS } from "../../src/store/kv/sqlite/old-tables/migrations/index.js";

const [file, pauseAt] = process.argv.slice(2);
if (file === undefined || pauseAt === undefined) throw new Error("usage: kv-conversion-child.ts FILE PAUSE_AFTER_PAIRS");
const pausing = {
  version: KV_CONVERSION_MIGRATION.version,
  name: KV_CONVERSION_MIGRATION.name,
  run: (db: Parameters<typeof convertTablesToKv>[0]) => {
    convertTablesToKv(db, {
      afterPut: (pairs) => {
        if (pairs !== Number(pauseAt)) return;
        writeSync(1, `paused mid-conversion after ${pairs} pairs\n`);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
        throw new Error("the conversion was paused and nobody killed it");
      },
    });
  },
};
openDatabase(file, [...MIGRATIONS, pausing]).close();
