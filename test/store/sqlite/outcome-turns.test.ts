import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { tempDir } from "../../support/temp-dir.js";
import { outcome } from "../conformance/store-harness.js";
import { turnsDuring } from "../../support/loop-turns.js";

describe("reading poll outcomes (each may list a thousand skipped machines)", () => {
  it("checks one outcome a turn of the event loop, so other requests are served between them", async () => {
    const dir = tempDir();
    const store = await openSqliteStore({ path: join(dir.path, "kintsugi.db") });
    try {
      for (let i = 1; i <= 4; i++) await store.outcomes.record(outcome(i));
      const { value: read, turns } = await turnsDuring(() => store.outcomes.last(4));
      assert.deepEqual(
        read.map((o) => o.sequence),
        [1, 2, 3, 4],
      );
      assert.ok(turns >= 3, `${turns} turns while four outcomes were read`);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
