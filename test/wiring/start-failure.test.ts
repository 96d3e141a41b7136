import assert from "node:assert/strict";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pino } from "pino";
import { DEFAULT_CONFIG, type KintsugiConfig } from "../../src/config/kintsugi-config.js";
import { startKintsugi } from "../../src/main.js";
import { tempDir } from "../support/temp-dir.js";

/** A free port on 127.0.0.1 (taken and released at once). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("a start that fails after the API listens", () => {
  it("stops what it started: the port and the database are free for the next start", async () => {
    const dir = tempDir();
    try {
      const port = await freePort();
      const base: KintsugiConfig = { ...DEFAULT_CONFIG, listen: { host: "127.0.0.1", port }, database: join(dir.path, "k.db") };
      const silent = pino({ level: "silent" });
      // A schedule the config loader would refuse: scheduling it throws after the API is listening.
      const broken: KintsugiConfig = {
        ...base,
        sabakan: { url: "http://127.0.0.1:9", schedule: "not a cron expression", timeoutSeconds: 1, maxResponseBytes: 1024 },
      };
      // The schedule fails only after the API listens: the cron error proves which step failed.
      await assert.rejects(startKintsugi(broken, { logger: silent }), /expected 5 or 6 fields/);
      const again = await startKintsugi(base, { logger: silent });
      try {
        assert.equal((await fetch(`${again.url}/health`)).status, 200, "the same port and database serve again");
      } finally {
        await again.close();
      }
    } finally {
      dir.remove();
    }
  });
});
