import assert from "node:assert/strict";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startCli } from "../support/cli-process.js";
import { serveProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { suiteEtcd } from "../support/suite-etcd.js";
import { ETCD_SKIP } from "../support/test-etcd.js";

/** Another program listening on a loopback port. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as { port: number }).port, server };
}

interface ServeResult {
  readonly code: number | null | "still running";
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `kintsugi serve --config k.yaml` with `yaml` in `dir`; one that has not exited within 30 s is killed. */
async function serveIn(dir: string, yaml: string): Promise<ServeResult> {
  writeFileSync(join(dir, "k.yaml"), yaml);
  const serve = startCli(["serve", "--config", "k.yaml"], { cwd: dir });
  const code = await serve.exitWithin(30_000);
  return { code, stdout: serve.out(), stderr: serve.err() };
}

function assertInUse(res: ServeResult, port: number): void {
  assert.equal(res.code, 1, `exit code; stderr: ${res.stderr}`);
  assert.equal(
    res.stderr,
    `kintsugi: cannot listen on 127.0.0.1:${port}: the address is already in use (by another kintsugi or another program); stop it or change listen in the config\n`,
  );
  assert.equal(res.stdout, "", "nothing logged: nothing was started");
}

describe("kintsugi serve on a port in use (the real binary)", () => {
  it("says so in one line, exits 1, and creates no database, folder or lock file", async () => {
    const dir = tempDir();
    const { port, server } = await occupiedPort();
    try {
      const res = await serveIn(dir.path, `listen: "127.0.0.1:${port}"\ndatabase: ./state/k.db\n`);
      assertInUse(res, port);
      assert.ok(!existsSync(join(dir.path, "state")), "the database folder was created");
      assert.deepEqual(readdirSync(dir.path), ["k.yaml"]);
    } finally {
      server.close();
      dir.remove();
    }
  });

  it("starts on the same port once it is free, creating the database then", async () => {
    const dir = tempDir();
    const { port, server } = await occupiedPort();
    await new Promise((resolve) => server.close(resolve));
    try {
      writeFileSync(join(dir.path, "k.yaml"), `listen: "127.0.0.1:${port}"\ndatabase: ./state/k.db\n`);
      const serve = serveProcess(["--config", "k.yaml"], dir.path);
      try {
        assert.equal(await serve.url, `http://127.0.0.1:${port}`);
        assert.ok(existsSync(join(dir.path, "state", "k.db")));
      } finally {
        serve.child.kill("SIGTERM");
        assert.equal(await serve.exited, 0);
      }
    } finally {
      dir.remove();
    }
  });
});

describe("kintsugi serve with store: etcd on a port in use (the real binary)", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("port-in-use");

  it("says so in one line, exits 1, and writes nothing to etcd", async () => {
    const dir = tempDir();
    const { port, server } = await occupiedPort();
    try {
      const res = await serveIn(
        dir.path,
        `listen: "127.0.0.1:${port}"\nstore: etcd\netcd:\n  endpoints: ${JSON.stringify(suite.etcd.endpoints)}\n  prefix: /port-in-use/\n`,
      );
      assertInUse(res, port);
      assert.deepEqual(await suite.client.getAll().keys(), [], "keys written to etcd");
    } finally {
      server.close();
      dir.remove();
    }
  });
});
