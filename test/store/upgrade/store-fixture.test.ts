import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { storeAnswers } from "../../support/store-fixture-answers.js";
import { STORE_FIXTURE_DB, STORE_FIXTURE_READS } from "../../support/store-fixture-reads.js";

// The fixture was made by scripts/make-store-fixture.ts with the release before the store's format changes (issue
// 26): whatever the store becomes, an installation of that release upgrades by starting the new one, and the API and
// `db check` answer exactly as they did.
describe("a SQLite database made by kintsugi's store-v1 release", () => {
  it("opens with this kintsugi and answers every API read, and db check's counts and hash, byte for byte as that release did", async () => {
    const recorded = JSON.parse(readFileSync(STORE_FIXTURE_READS, "utf8")) as { reads: Record<string, string>; counts: object };
    const before = readFileSync(STORE_FIXTURE_DB);
    const now = await storeAnswers(STORE_FIXTURE_DB);
    for (const name of Object.keys(recorded.reads)) assert.equal(now.reads[name], recorded.reads[name], `the read "${name}"`);
    assert.deepEqual(Object.keys(now.reads), Object.keys(recorded.reads));
    assert.deepEqual(now.before, { counts: recorded.counts, sha256: now.before.sha256, problems: [] }, "db check before serving");
    // The items as that release hashed them: a conversion that lost or changed a field changes the hash.
    const released = JSON.parse(readFileSync(new URL("db-check.json", STORE_FIXTURE_DB), "utf8")) as { counts: object; sha256: string };
    assert.deepEqual(
      { counts: now.after.counts, sha256: now.after.sha256 },
      { counts: released.counts, sha256: released.sha256 },
      "db check as the release said",
    );
    assert.deepEqual(now.after, now.before, "db check after serving: the same counts and hash");
    assert.match(now.before.sha256 ?? "", /^[0-9a-f]{64}$/);
    assert.ok(!Object.values(recorded.reads).some((body) => body.includes('"errors"')), "every recorded read succeeded");
    assert.ok(readFileSync(STORE_FIXTURE_DB).equals(before), "the fixture itself is never written");
  });
});
