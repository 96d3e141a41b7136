// bench/kv-conversion: how long the conversion (src/store/kv/sqlite/old-tables/convert-sqlite-file.ts) takes to convert an old-format
// SQLite file with 1,000,000 history rows (bench/history-seed.ts: 100,000 dequeued repairs, the newest 10,000 finished
// and kept) to the key-value format, into a new file, and how much the process grows meanwhile (the rows are
// streamed, so it should not grow with the history). Next to it, the anchor: a bare read of the same history rows.
// Prints figures; asserts nothing. Run: node --import tsx bench/kv-conversion.ts [ROWS]
import { statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { convertOldFile } from "../src/store/kv/sqlite/old-tables/convert-sqlite-file.js";
import { openDatabase } from "../src/store/kv/sqlite/database.js";
import { tempDir } from "../test/support/temp-dir.js";
import { RECORDS_PER_REPAIR, seedHistory } from "./history-seed.js";

const ROWS = Number(process.argv[2] ?? 1_000_000);
const T0 = Date.UTC(2026, 0, 1);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const dir = tempDir("kintsugi-bench-");
try {
  const file = join(dir.path, "kintsugi.db");
  let start = performance.now();
  const seeded = openDatabase(file);
  seedHistory(seeded, ROWS, T0);
  // The seeded history is of dequeued entries: the queue's counter went past them when they were handed out.
  seeded.prepare("DELETE FROM sqlite_sequence WHERE name = 'repair_entries'").run();
  seeded.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('repair_entries', ?)").run(ROWS / RECORDS_PER_REPAIR);
  seeded.close();
  console.log(`seeded ${ROWS.toLocaleString("en")} history rows in ${seconds(performance.now() - start)}; the file: ${mb(statSync(file).size)}`);

  const reading = openDatabase(file);
  start = performance.now();
  let read = 0;
  for (const _row of reading.prepare("SELECT * FROM repair_history ORDER BY entry_index, seq").iterate()) read++;
  reading.close();
  console.log(`anchor: a bare read of the ${read.toLocaleString("en")} history rows in key order: ${seconds(performance.now() - start)}`);

  const rssBefore = process.memoryUsage().rss;
  start = performance.now();
  convertOldFile(file);
  const took = performance.now() - start;
  // Read as it is: the old migrations' openDatabase refuses the converted file's schema version.
  const converted = new Database(file, { readonly: true });
  const pairs = converted.prepare("SELECT COUNT(*) FROM kv").pluck().get() as number;
  converted.close();
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(
    `the conversion made them (${pairs.toLocaleString("en")} pairs) in ${seconds(took)} (${Math.round(pairs / (took / 1000)).toLocaleString("en")} pairs/s); ` +
      `RSS ${mb(rssBefore)} before, peak ${mb(peak)}; the file: ${mb(statSync(file).size)}`,
  );
} finally {
  dir.remove();
}
