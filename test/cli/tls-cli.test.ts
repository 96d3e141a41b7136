import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import { sha256Hex } from "../../src/auth/tokens.js";
import { KINTSUGI_BIN } from "../support/run-cli.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { writeTlsTestFiles, type TlsTestFiles } from "../support/tls-files.js";
import { until } from "../support/until.js";

const REPAIR = `repair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n        - operation: unreachable\n          repair_steps: [{ repair_command: ["true"], watch_seconds: 600 }]\n          health_check_command: ["false"]\n`;
const VIEWER_TOKEN = "kintsugi_tls-test-viewer";

/** The real `kintsugi serve` with this config in `dir`, up and answering. */
async function serve(dir: string, config: string): Promise<{ server: ServeProcess; url: string }> {
  writeFileSync(join(dir, "kintsugi.yaml"), config);
  const server = serveProcess(["--config", "kintsugi.yaml"], dir);
  return { server, url: await server.url };
}

async function stop(server: ServeProcess): Promise<void> {
  server.child.kill("SIGTERM");
  assert.equal(await server.exited, 0, server.stderr());
}

/** How a raw TLS connection to `url` that sends a request ends: the error code of its failure, or "answered". */
function tlsOutcome(url: string, options: { ca: string; cert?: string; key?: string }): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), ...options });
    socket.on("secureConnect", () => socket.write(`GET /health HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`));
    socket.on("data", () => {
      socket.destroy();
      resolve("answered");
    });
    socket.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.on("end", () => resolve("closed"));
  });
}

/** The HTTP status of GET /version over HTTPS with this Origin header, trusting `ca`. */
function statusWithOrigin(url: string, ca: string, origin: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/version`, { ca, headers: { origin } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

/** `kintsugi ... repair-queue watch` as a child process, its output collected. */
function watch(args: readonly string[]) {
  const child = spawn(process.execPath, [KINTSUGI_BIN, ...args, "repair-queue", "watch"]);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

describe("TLS: kintsugi serves HTTPS and WSS; the CLI verifies it with --ca (a real server, the CLI in-process)", () => {
  const dir = tempDir();
  let files: TlsTestFiles;
  let server: ServeProcess;
  let url: string;
  before(async () => {
    files = await writeTlsTestFiles(dir.path, []);
    ({ server, url } = await serve(dir.path, `listen: "127.0.0.1:0"\ndatabase: ./k.db\ntls: { cert_file: server.pem, key_file: server.key }\n${REPAIR}`));
  });
  after(async () => {
    await stop(server);
    dir.remove();
  });

  it("logs an https:// URL", () => assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/));

  it("kintsugi's own browser origin is https://HOST: http://HOST is refused", async () => {
    const ca = readFileSync(files.serverCa, "utf8");
    assert.equal(await statusWithOrigin(url, ca, url), 200);
    assert.equal(await statusWithOrigin(url, ca, url.replace(/^https/, "http")), 403);
  });

  it("repair-queue list --server https://... --ca CA works", async () => {
    const res = await runCliInProcess(["--server", url, "--ca", files.serverCa, "repair-queue", "list"]);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, "null\n", "an empty queue, as ckecli prints it");
  });

  it("without --ca the server's certificate is not trusted, and the error says to pass --ca", async () => {
    const res = await runCliInProcess(["--server", url, "repair-queue", "list"]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    assert.match(res.stderr, /not trusted \(pass --ca FILE/);
  });

  it("with the wrong CA (the client CA) the certificate is not trusted either", async () => {
    const res = await runCliInProcess(["--server", url, "--ca", files.clientCa, "repair-queue", "list"]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /not trusted/);
  });

  it("takes the server and the CA from KINTSUGI_SERVER and KINTSUGI_CA", async () => {
    const res = await runCliInProcess(["repair-queue", "is-enabled"], {
      env: { PATH: process.env["PATH"], KINTSUGI_SERVER: url, KINTSUGI_CA: files.serverCa },
    });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, "true\n");
  });

  it("names an unreadable --ca file", async () => {
    const res = await runCliInProcess(["--server", url, "--ca", join(dir.path, "missing.pem"), "repair-queue", "list"]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /--ca .*missing\.pem: cannot read: no such file/);
  });

  it("names a --ca file past the bound (/dev/zero never ends), without reading it whole", async () => {
    const res = await runCliInProcess(["--server", url, "--ca", "/dev/zero", "repair-queue", "list"]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /--ca \/dev\/zero: cannot read: larger than 16777216 bytes/);
  });

  it("repair-queue watch follows the queue over WSS with the CA", async () => {
    const w = watch(["--server", url, "--ca", files.serverCa]);
    try {
      await until("the watch is subscribed", () => w.err().includes("in the queue"));
      const added = await runCliInProcess(["--server", url, "--ca", files.serverCa, "repair-queue", "add", "unreachable", "qemu", "10.0.0.1"]);
      assert.equal(added.code, 0, added.stderr);
      await until("the watch prints the new entry", () => /#\d+ 10\.0\.0\.1 unreachable CREATED/.test(w.out()));
      w.child.kill("SIGTERM");
      assert.equal(await w.exited, 0, w.err());
    } finally {
      w.child.kill("SIGKILL");
    }
  });

  it("repair-queue watch without the CA fails on the certificate", async () => {
    const w = watch(["--server", url]);
    try {
      assert.equal(await w.exited, 1);
      assert.match(w.err(), /subscription failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE: the server's certificate is not trusted \(pass --ca FILE/);
    } finally {
      w.child.kill("SIGKILL");
    }
  });
});

describe("TLS client certificates: the CN becomes the actor, with the role auth.client_certificates maps it to", () => {
  const dir = tempDir();
  let files: TlsTestFiles;
  let server: ServeProcess;
  let url: string;
  const as = (cn: string, ...rest: string[]) => {
    const { cert, key } = files.client(cn);
    return ["--server", url, "--ca", files.serverCa, "--cert", cert, "--key", key, ...rest];
  };
  before(async () => {
    files = await writeTlsTestFiles(dir.path, ["ops-laptop", "dashboard", "unmapped"], ["ops-laptop"]);
    ({ server, url } = await serve(
      dir.path,
      `listen: "127.0.0.1:0"\ndatabase: ./k.db\n` +
        `tls: { cert_file: server.pem, key_file: server.key, client_ca_file: client-ca.pem }\n` +
        `auth:\n  anonymous: none\n  tokens: [{ name: grafana, role: viewer, sha256: "${sha256Hex(VIEWER_TOKEN)}" }]\n` +
        `  client_certificates:\n    - { cn: ops-laptop, role: operator }\n    - { cn: dashboard, role: viewer }\n${REPAIR}`,
    ));
  });
  after(async () => {
    await stop(server);
    dir.remove();
  });

  it("a certificate whose CN is mapped to operator can mutate", async () => {
    const res = await runCliInProcess(as("ops-laptop", "repair-queue", "disable"));
    assert.equal(res.code, 0, res.stderr);
    assert.equal((await runCliInProcess(as("ops-laptop", "repair-queue", "is-enabled"))).stdout, "false\n");
    assert.equal((await runCliInProcess(as("ops-laptop", "repair-queue", "enable"))).code, 0);
  });

  it("a certificate whose CN is mapped to viewer may read but not mutate, and the refusal names it", async () => {
    assert.equal((await runCliInProcess(as("dashboard", "repair-queue", "is-enabled"))).code, 0);
    const res = await runCliInProcess(as("dashboard", "repair-queue", "disable"));
    assert.equal(res.code, 1);
    assert.match(res.stderr, /needs the operator role; client certificate "dashboard" has the viewer role \(FORBIDDEN\)/);
  });

  it("a certificate whose CN is not mapped counts as no credentials (here: refused, anonymous is none)", async () => {
    const res = await runCliInProcess(as("unmapped", "repair-queue", "is-enabled"));
    assert.equal(res.code, 1);
    assert.match(
      res.stderr,
      /needs a token: set KINTSUGI_TOKEN=<token> .*, or a client certificate \(--cert FILE --key FILE\) whose CN the server's auth\.client_certificates maps to a role \(UNAUTHENTICATED\)/,
    );
  });

  it("a Bearer token works alongside a certificate, and decides when sent", async () => {
    const env = { PATH: process.env["PATH"], KINTSUGI_TOKEN: VIEWER_TOKEN };
    assert.equal((await runCliInProcess(as("unmapped", "repair-queue", "is-enabled"), { env })).code, 0);
    const res = await runCliInProcess(as("ops-laptop", "repair-queue", "disable"), { env });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /token "grafana" has the viewer role/);
  });

  it("a request without a certificate is refused in the TLS handshake", async () => {
    const res = await runCliInProcess(["--server", url, "--ca", files.serverCa, "repair-queue", "is-enabled"]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /closed the connection; .*\(pass --cert FILE --key FILE\)/);
    const ca = readFileSync(files.serverCa, "utf8");
    assert.equal(await tlsOutcome(url, { ca }), "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED", "refused in the handshake, before HTTP");
    const { cert, key } = files.client("ops-laptop");
    assert.equal(await tlsOutcome(url, { ca, cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") }), "answered");
  });

  it("a certificate with a mapped CN from another CA is refused in the TLS handshake", async () => {
    const { cert, key } = files.client("stranger:ops-laptop");
    const enabledBefore = (await runCliInProcess(as("ops-laptop", "repair-queue", "is-enabled"))).stdout;
    const res = await runCliInProcess(["--server", url, "--ca", files.serverCa, "--cert", cert, "--key", key, "repair-queue", "disable"]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /closed the connection/);
    assert.match(
      await tlsOutcome(url, { ca: readFileSync(files.serverCa, "utf8"), cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") }),
      /ALERT_UNKNOWN_CA|ALERT_BAD_CERTIFICATE|^closed$/,
      "refused in the handshake, not answered",
    );
    assert.equal((await runCliInProcess(as("ops-laptop", "repair-queue", "is-enabled"))).stdout, enabledBefore, "nothing changed");
  });

  it("a WSS subscription is admitted by the handshake's client certificate", async () => {
    const w = watch(as("dashboard"));
    try {
      await until("the watch is subscribed", () => w.err().includes("in the queue"));
      assert.equal((await runCliInProcess(as("ops-laptop", "repair-queue", "add", "unreachable", "qemu", "10.0.0.2"))).code, 0);
      await until("the watch prints the new entry", () => /#\d+ 10\.0\.0\.2 unreachable CREATED/.test(w.out()));
      w.child.kill("SIGTERM");
      assert.equal(await w.exited, 0, w.err());
    } finally {
      w.child.kill("SIGKILL");
    }
  });
});
