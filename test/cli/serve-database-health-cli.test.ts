import { hostname } from "node:os";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, chownSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { runAsForFileModes } from "../support/run-as-nobody.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve("better-sqlite3");

/** Far longer than a request takes, far shorter than the 5 s a synchronous busy wait used to stall kintsugi. */
const LIVENESS_DEADLINE_MS = 3000;

async function post(url: string, query: string): Promise<{ data?: any; errors?: Array<{ message: string; extensions?: { type?: string } }> }> {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(LIVENESS_DEADLINE_MS),
  });
  return res.json() as Promise<{ data?: any }>;
}

async function health(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(LIVENESS_DEADLINE_MS) });
  return { status: res.status, body: await res.json() };
}

/** Another process (as an operator's sqlite3 shell would) holding the database's write lock until `release()`. */
async function holdWriteLock(file: string): Promise<{ release(): Promise<void> }> {
  const script = `const db = new (require(process.argv[1]))(process.argv[2]); db.exec("BEGIN IMMEDIATE"); console.log("held");
    process.stdin.on("end", () => { db.exec("ROLLBACK"); db.close(); }); process.stdin.resume();`;
  const child = spawn(process.execPath, ["-e", script, BETTER_SQLITE3, file], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => line === "held" && resolve());
    void exited.then((code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return {
    async release() {
      child.stdin.end();
      assert.equal(await exited, 0);
    },
  };
}

async function stop(server: ServeProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM");
  await server.exited;
}

describe("the database under other processes and a read-only file (the real binary)", () => {
  it("keeps answering while another process holds the write lock; mutations fail fast as STORE_BUSY, then work again", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "k.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./k.db\n`);
      const server = serveProcess(["--config", "k.yaml"], dir.path);
      try {
        const url = await server.url;
        assert.deepEqual((await post(url, "mutation { setRepairQueueEnabled(enabled: false) }")).data, { setRepairQueueEnabled: false });
        const lock = await holdWriteLock(join(dir.path, "k.db"));
        try {
          assert.deepEqual(
            await health(url),
            { status: 200, body: { status: "ok", store: "sqlite", replica: hostname(), leader: true, leaderName: hostname() } },
            "another process's lock is not ill health",
          );
          assert.deepEqual((await post(url, "{ repairQueueEnabled }")).data, { repairQueueEnabled: false }, "reads go on");
          const busy = await post(url, "mutation { setRepairQueueEnabled(enabled: true) }");
          assert.equal(busy.errors?.[0]?.extensions?.type, "STORE_BUSY");
          assert.match(busy.errors?.[0]?.message ?? "", /the database is busy: another process holds its write lock .*nothing was changed, try again/);
          assert.deepEqual((await post(url, "{ repairQueueEnabled }")).data, { repairQueueEnabled: false }, "the busy mutation changed nothing");
        } finally {
          await lock.release();
        }
        assert.deepEqual((await post(url, "mutation { setRepairQueueEnabled(enabled: true) }")).data, { setRepairQueueEnabled: true });
        assert.deepEqual((await post(url, "{ repairQueueEnabled }")).data, { repairQueueEnabled: true });
      } finally {
        await stop(server);
      }
    } finally {
      dir.remove();
    }
  });

  // File modes do not stop root: as root, kintsugi runs as nobody, for whom the file really is read-only.
  const { as, skip } = runAsForFileModes();
  it("answers /health 503 naming a read-only database, STORE_UNAVAILABLE to a mutation, and still serves reads", { skip }, async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "k.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./k.db\n`);
      if (as) for (const name of [".", ...readdirSync(dir.path)]) chownSync(join(dir.path, name), as.uid, as.gid);
      const writable = serveProcess(["--config", "k.yaml"], dir.path, undefined, as);
      try {
        assert.deepEqual(await health(await writable.url), {
          status: 200,
          body: { status: "ok", store: "sqlite", replica: hostname(), leader: true, leaderName: hostname() },
        });
      } finally {
        await stop(writable);
      }
      chmodSync(join(dir.path, "k.db"), 0o444);
      const server = serveProcess(["--config", "k.yaml"], dir.path, undefined, as);
      try {
        const url = await server.url;
        const answer = await health(url);
        assert.equal(answer.status, 503);
        const body = answer.body as { status: string; reason: string };
        assert.equal(body.status, "unhealthy");
        assert.match(body.reason, /^database .*\/k\.db is read-only \(SQLITE_READONLY/);
        const refused = await post(url, "mutation { setRepairQueueEnabled(enabled: false) }");
        assert.equal(refused.errors?.[0]?.extensions?.type, "STORE_UNAVAILABLE");
        assert.deepEqual((await post(url, "{ repairQueueEnabled }")).data, { repairQueueEnabled: true });
      } finally {
        await stop(server);
      }
    } finally {
      dir.remove();
    }
  });
});
