import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkDatabaseFile } from "../../src/store/copy/database-check.js";
import { startTestKintsugi } from "./kintsugi-server.js";
import { FIXTURE_NOW, STORE_FIXTURE_QUERIES } from "./store-fixture-reads.js";
import { tempDir } from "./temp-dir.js";

/** What `kintsugi db check` says of a file: its counts and hash, and its problems. */
export interface StoreCheck {
  readonly counts: object | null;
  readonly sha256: string | null;
  readonly problems: readonly string[];
}

/**
 * What a kintsugi answers about a store: each API read's body as text, and `db check` of the file before kintsugi
 * served it (an old format is read as serve would migrate it) and after (as serve left it).
 */
export interface StoreAnswers {
  readonly reads: Readonly<Record<string, string>>;
  readonly before: StoreCheck;
  readonly after: StoreCheck;
}

async function check(path: string): Promise<StoreCheck> {
  const result = await checkDatabaseFile(path);
  return { counts: result.summary?.counts ?? null, sha256: result.summary?.sha256 ?? null, problems: result.problems };
}

/**
 * Serves a copy of the SQLite file at `db` with this checkout's kintsugi (its clock at FIXTURE_NOW) and answers every
 * read of {@link STORE_FIXTURE_QUERIES}, checking the copy as `kintsugi db check` does before and after. The original
 * is left as it is.
 */
export async function storeAnswers(db: URL | string): Promise<StoreAnswers> {
  const dir = tempDir();
  try {
    const path = join(dir.path, "kintsugi.db");
    copyFileSync(typeof db === "string" ? db : fileURLToPath(db), path);
    const before = await check(path);
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
    return { reads, before, after: await check(path) };
  } finally {
    dir.remove();
  }
}
