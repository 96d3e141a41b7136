// A process that converts the old-format SQLite file argv[2] to the key-value format (convertOldFile: a new file
// beside it) and, once it has converted argv[3] rows, says so on stdout and blocks: the crash test kills it there.
// Should nobody kill it, it fails the conversion rather than finish it.
import { writeSync } from "node:fs";
import { convertOldFile } from "../../src/store/kv/sqlite/old-tables/convert-sqlite-file.js";

const [file, pauseAt] = process.argv.slice(2);
if (file === undefined || pauseAt === undefined) throw new Error("usage: kv-conversion-child.ts FILE PAUSE_AFTER_ROWS");
convertOldFile(file, {
  afterItem: (rows) => {
    if (rows !== Number(pauseAt)) return;
    writeSync(1, `paused mid-conversion after ${rows} rows\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
    throw new Error("the conversion was paused and nobody killed it");
  },
});
