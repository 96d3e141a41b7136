import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkDatabaseFile } from "../../src/store/backup/database-check.js";
import { startTestKintsugi } from "./kintsugi-server.js";
import { FIXTURE_NOW, STORE_FIXTURE_QUERIES } from "./store-fixture-reads.js";
import { tempDir } from "./temp-dir.js";

/** What a kintsugi answers about a store: each API read's body as text, and `db check`'s counts and hash. */
export interface StoreAnswers {
  readonly reads: Readonly<Record<string, string>>;
  readonly check: { readonly schemaVersion: number | null; readonly counts: object | null; readonly sha256: string | null; readonly problems: readonly string[] };
}

/**
 * Serves a copy of the SQLite file at `db` with this checkout's kintsugi (its clock at FIXTURE_NOW) and answers every
 * read of {@link STORE_FIXTURE_QUERIES}, then checks the copy as `kintsugi db check` does. The original is left as it is.
 */
export async function storeAnswers(db: URL | string): Promise<StoreAnswers> {
  const dir = tempDir();
  try {
    const path = join(dir.path, "kintsugi.db");
    copyFileSync(typeof db === "string" ? db : fileURLToPath(db), path);
    const k = await startTestKintsugi({}, { databasePath: path, now: () => FIXTURE_NOW });
    const reads: Record<string, string> = {};
    try {
      for (const [name, query] of Object.entries(STORE_FIXTURE_QUERIES)) {
        const res = await fetch(`${k.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
        reads[name] = await res.text();
      }
    } finally {
      await k.dispose();
    }
    const check = await checkDatabaseFile(path);
    return { reads, check: { schemaVersion: check.schemaVersion, counts: check.counts, sha256: check.summary?.sha256 ?? null, problems: check.problems } };
  } finally {
    dir.remove();
  }
}
