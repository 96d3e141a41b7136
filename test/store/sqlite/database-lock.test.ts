import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { lockDatabase } from "../../../src/store/kv/sqlite/database-lock.js";
import { tempDir } from "../../support/temp-dir.js";
import { typescriptEntry, typescriptLoader } from "../../support/typescript-child.js";

const LOCK_MODULE = fileURLToPath(new URL("../../../src/store/kv/sqlite/database-lock.ts", import.meta.url));

/** Whether another process can take the lock now (it lets go at once): a real second kintsugi's view. */
function otherProcessCanLock(databasePath: string): Promise<string> {
  const script = `import(process.argv[1]).then((m) => { try { m.lockDatabase(process.argv[2]).release(); console.log("locked"); } catch (e) { console.log(e.message); } });`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...typescriptLoader(), "-e", script, typescriptEntry(LOCK_MODULE), databasePath], (err, stdout) =>
      err ? reject(err) : resolve(stdout.trim()),
    );
  });
}

describe("lockDatabase", () => {
  it("refuses a second lock in this process, naming this pid, and the refusal does not weaken the lock", async () => {
    const dir = tempDir();
    try {
      const database = join(dir.path, "k.db");
      const lock = lockDatabase(database);
      try {
        assert.throws(() => lockDatabase(database), {
          name: "DatabaseOpenError",
          message: `database ${database} is in use by another kintsugi process (pid ${process.pid}), which holds its lock file ${database}.lock; stop that process or give this one another database`,
        });
        assert.match(await otherProcessCanLock(database), new RegExp(`in use by another kintsugi process \\(pid ${process.pid}\\)`));
      } finally {
        lock.release();
      }
      assert.equal(await otherProcessCanLock(database), "locked", "released");
      lockDatabase(database).release();
    } finally {
      dir.remove();
    }
  });
});
