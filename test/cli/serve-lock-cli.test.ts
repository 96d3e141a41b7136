import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../support/run-cli.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";

async function queueEnabled(url: string): Promise<unknown> {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: "{ repairQueueEnabled }" }),
  });
  return res.json();
}

async function stop(server: ServeProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM");
  await server.exited;
}

describe("one kintsugi per database (the real binary)", () => {
  it("refuses a second serve on the same database, naming the file and the holder's pid, and writes nothing", async () => {
    const dir = tempDir();
    const first = (() => {
      writeFileSync(join(dir.path, "k.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./state/k.db\n`);
      return serveProcess(["--config", "k.yaml"], dir.path);
    })();
    try {
      const url = await first.url;
      const database = join(dir.path, "state", "k.db");
      const before = [readFileSync(database), readFileSync(`${database}-wal`)];
      const second = await runCli(["serve", "--config", "k.yaml"], { cwd: dir.path });
      assert.equal(second.code, 1);
      assert.equal(
        second.stderr,
        `kintsugi: database ${database} is in use by another kintsugi process (pid ${first.child.pid}), which holds its lock file ${database}.lock; ` +
          "stop that process or give this one another database\n",
      );
      assert.deepEqual([readFileSync(database), readFileSync(`${database}-wal`)], before, "the refused process wrote nothing");
      assert.deepEqual(await queueEnabled(url), { data: { repairQueueEnabled: true } }, "the first keeps serving");
      // Other commands talk to the server over HTTP and take no lock.
      assert.equal((await runCliInProcess(["--server", url, "repair-queue", "list"])).code, 0);
    } finally {
      await stop(first);
      dir.remove();
    }
  });

  it("starts again on the database after the holder was killed with SIGKILL: the lock dies with its process", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "k.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./k.db\n`);
      const killed = serveProcess(["--config", "k.yaml"], dir.path);
      await killed.url;
      killed.child.kill("SIGKILL");
      await killed.exited;
      const next = serveProcess(["--config", "k.yaml"], dir.path);
      try {
        assert.deepEqual(await queueEnabled(await next.url), { data: { repairQueueEnabled: true } });
      } finally {
        await stop(next);
      }
    } finally {
      dir.remove();
    }
  });
});
