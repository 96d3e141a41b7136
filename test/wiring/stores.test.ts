import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pino } from "pino";
import { StartRefusedError } from "../../src/auth/access-policy.js";
import { DEFAULT_CONFIG } from "../../src/config/kintsugi-config.js";
import { openBackend } from "../../src/wiring/stores.js";
import { tempDir } from "../support/temp-dir.js";

describe("openBackend", () => {
  it("refuses constraints that contradict each other once the stored ones are laid over the config file's, and lets go of the store", async () => {
    const dir = tempDir();
    const silent = pino({ level: "silent" });
    const config = { ...DEFAULT_CONFIG, database: join(dir.path, "k.db") };
    try {
      const first = await openBackend(config, silent);
      await first.store.settings.setConstraints({ minimumWorkers: 5 });
      await first.close();
      await assert.rejects(
        openBackend({ ...config, constraints: { maximumWorkers: 3 } }, silent),
        (err: Error) =>
          err instanceof StartRefusedError &&
          err.message === "constraints (config file and stored values together): maximum-workers (3) must be 0 (unlimited) or >= minimum-workers (5)",
      );
      // The refused start released the file's lock: a coherent config opens it.
      const again = await openBackend({ ...config, constraints: { maximumWorkers: 6 } }, silent);
      assert.equal(again.store.settings.constraints().maximumWorkers, 6);
      await again.close();
    } finally {
      dir.remove();
    }
  });
});
