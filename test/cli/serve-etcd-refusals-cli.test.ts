import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openEtcdStore } from "../../src/store/kv/etcd/open-etcd-store.js";
import { runCli, type CliResult } from "../support/run-cli.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { tempDir } from "../support/temp-dir.js";
import { suiteEtcd } from "../support/suite-etcd.js";
import { ETCD_SKIP } from "../support/test-etcd.js";

/** A loopback port nothing listens on (taken from the kernel, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `kintsugi serve` on `yaml` in a fresh directory. */
async function serveOn(yaml: string): Promise<CliResult & { dir: string }> {
  const dir = tempDir();
  try {
    writeFileSync(join(dir.path, "k.yaml"), yaml);
    return { ...(await runCli(["serve", "--config", "k.yaml"], { cwd: dir.path })), dir: dir.path };
  } finally {
    dir.remove();
  }
}

/** The refusal is one `kintsugi: ...` line on stderr (no stack), and exit code 1. */
function assertOneLine(res: CliResult, message: RegExp): void {
  assert.equal(res.code, 1, `exit code; stderr: ${res.stderr}`);
  const lines = res.stderr.split("\n").filter((line) => line !== "");
  assert.equal(lines.length, 1, `one line on stderr, got:\n${res.stderr}`);
  assert.match(lines[0] as string, message);
  assert.doesNotMatch(res.stderr, /^\s+at /m, "no stack");
}

const SECRET = "Etcd-Pw-Not-To-Be-Shown";

describe("kintsugi serve on etcd refuses to start with one line, no stack (serve as the real binary)", () => {
  it("a TLS file of the etcd section that cannot be read: the key and the path", async () => {
    const res = await serveOn(`listen: "127.0.0.1:0"\nstore: etcd\netcd:\n  endpoints: ["https://127.0.0.1:2379"]\n  tls-ca-file: ./missing-ca.pem\n`);
    assertOneLine(res, /^kintsugi: k\.yaml: etcd\.tls-ca-file: \.\/missing-ca\.pem: cannot read: no such file$/);
  });

  it("check-config reads the etcd section's TLS files as serve would, without connecting", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "k.yaml"), `store: etcd\netcd:\n  endpoints: ["https://127.0.0.1:2379"]\n  tls-ca-file: ./missing-ca.pem\n`);
      const res = await runCliInProcess(["check-config", "k.yaml"], { cwd: dir.path });
      assert.deepEqual([res.code, res.stderr], [1, "kintsugi: k.yaml: etcd.tls-ca-file: ./missing-ca.pem: cannot read: no such file\n"]);
      writeFileSync(join(dir.path, "ok.yaml"), `store: etcd\netcd:\n  endpoints: ["https://127.0.0.1:${await closedPort()}"]\n`);
      assert.deepEqual(await runCliInProcess(["check-config", "ok.yaml"], { cwd: dir.path }), { code: 0, stdout: "ok.yaml: ok\n", stderr: "" });
    } finally {
      dir.remove();
    }
  });

  it("an etcd that does not answer: the endpoint and what was tried, never the password", async () => {
    const port = await closedPort();
    const res = await serveOn(
      `listen: "127.0.0.1:0"\nstore: etcd\netcd:\n  endpoints: ["http://127.0.0.1:${port}"]\n  timeout: 300ms\n  username: kintsugi\n  password: "${SECRET}"\n`,
    );
    assertOneLine(
      res,
      new RegExp(
        `^kintsugi: etcd at http://127\\.0\\.0\\.1:${port} did not answer \\(checking the schema version of /kintsugi/; it may or may not have been committed\\): `,
      ),
    );
    assert.doesNotMatch(res.stdout + res.stderr, new RegExp(SECRET));
  });
});

describe("kintsugi serve on a real etcd refuses a prefix it cannot use with one line, no stack", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("serve-refusals");
  const config = (prefix: string, extra = "") =>
    `listen: "127.0.0.1:0"\nstore: etcd\netcd:\n  endpoints: ${JSON.stringify(suite.etcd.endpoints)}\n  prefix: ${prefix}\n${extra}`;

  it("a schema key that is not kintsugi's, its value quoted with control characters escaped", async () => {
    await suite.client.put("/not-kintsugi/schema").value("hello\x1b[2J\u202e");
    const res = await serveOn(config("/not-kintsugi/"));
    assertOneLine(res, /^kintsugi: etcd prefix \/not-kintsugi\/ has a schema key \(\/not-kintsugi\/schema\) that is not kintsugi's: "hello\\x1b\[2J\\u202e"$/);
  });

  it("stored constraints that contradict the config file's", async () => {
    const store = await openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix: "/contradicts/" });
    try {
      await store.settings.setConstraints({ minimumWorkers: 5 });
    } finally {
      await store.close();
    }
    const res = await serveOn(config("/contradicts/", "constraints:\n  maximum-workers: 2\n"));
    assertOneLine(
      res,
      /^kintsugi: constraints \(config file and values stored in etcd together\): maximum-workers \(2\) must be 0 \(unlimited\) or >= minimum-workers \(5\)$/,
    );
  });
});
