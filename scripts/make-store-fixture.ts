// Makes test/fixtures/store-v1/: a SQLite database written by this release's store (every kind of stored item, as
// test/support/realistic-store.ts writes them) and what this release's API answers about it (api-reads.json, with
// `db check`'s counts). Committed once, before the store's format changes, so that the upgrade test can prove
// a later release opens, converts and answers it byte for byte. Run: node --import tsx scripts/make-store-fixture.ts
import { rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openSqliteStore } from "../src/store/kv/sqlite/open-sqlite-store.js";
import { writeRealisticHistory } from "../test/support/realistic-store.js";
import { storeAnswers } from "../test/support/store-fixture-answers.js";
import { STORE_FIXTURE_DB, STORE_FIXTURE_READS } from "../test/support/store-fixture-reads.js";

const db = fileURLToPath(STORE_FIXTURE_DB);
for (const suffix of ["", "-wal", "-shm", ".lock"]) rmSync(`${db}${suffix}`, { force: true });
const store = await openSqliteStore({ path: db });
await writeRealisticHistory(store);
await store.close();
const { reads, before } = await storeAnswers(db);
// The hash is the release's own reading of its items: a later release that adds a field hashes them anew, so only the
// counts are kept; the test compares a release's hash before and after it serves the file.
writeFileSync(fileURLToPath(STORE_FIXTURE_READS), `${JSON.stringify({ reads, counts: before.counts }, null, 2)}\n`);
console.log(`wrote ${db} and ${fileURLToPath(STORE_FIXTURE_READS)}`);
