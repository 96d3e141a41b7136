import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { spawn } from "node:child_process";
import { KINTSUGI_BIN } from "../support/run-cli.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { until } from "../support/until.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";

/** Runs `token create` and returns the token and the config line it printed. */
async function createToken(name: string, role: string): Promise<{ token: string; line: string }> {
  const res = await runCliInProcess(["token", "create", name, "--role", role]);
  assert.equal(res.code, 0, res.stderr);
  const [token, line, ...rest] = res.stdout.split("\n");
  assert.deepEqual(rest, [""], "two lines");
  assert.match(res.stderr, /^kintsugi: the first line is the token: keep it now, it is not stored\./);
  return { token: token as string, line: line as string };
}

describe("kintsugi token create (in-process)", () => {
  it("prints a new random token, then its config line holding only the token's SHA-256", async () => {
    const { token, line } = await createToken("ci-bot", "operator");
    assert.match(token, /^kintsugi_[A-Za-z0-9_-]{43}$/);
    assert.equal(line, `- { name: ci-bot, role: operator, sha256: "${createHash("sha256").update(token).digest("hex")}" }`);
    assert.notEqual((await createToken("ci-bot", "operator")).token, token, "a new token every time");
  });

  const refused: Array<[string, string[], RegExp]> = [
    ["an unknown role", ["token", "create", "x", "--role", "root"], /Allowed choices are viewer, operator, admin/],
    ["no role", ["token", "create", "x"], /--role <ROLE>' not specified/],
    ["a name that is not one", ["token", "create", "ci bot", "--role", "viewer"], /must be 1-63 letters/],
  ];
  for (const [name, args, message] of refused) {
    it(`refuses ${name}`, async () => {
      const res = await runCliInProcess(args);
      assert.equal(res.code, 1);
      assert.equal(res.stdout, "");
      assert.match(res.stderr, message);
    });
  }
});

describe("tokens from token create, end to end: check-config, serve, and the CLI's --token / KINTSUGI_TOKEN", () => {
  let dir: ReturnType<typeof tempDir>;
  let server: ServeProcess;
  let url: string;
  let operator: string;
  let admin: string;

  before(async () => {
    dir = tempDir();
    const op = await createToken("ci-bot", "operator");
    const ad = await createToken("oncall", "admin");
    operator = op.token;
    admin = ad.token;
    writeFileSync(join(dir.path, "tokens.yaml"), `${ad.line}\n`);
    writeFileSync(
      join(dir.path, "kintsugi.yaml"),
      `listen: "127.0.0.1:0"\ndatabase: ./k.db\nauth:\n  anonymous: none\n  tokens_file: ./tokens.yaml\n  tokens:\n    ${op.line}\n`,
    );
    server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
    url = await server.url;
  });
  after(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
    dir.remove();
  });

  it("check-config accepts the config lines token create printed, in the config and in a tokens file", async () => {
    assert.deepEqual(await runCliInProcess(["check-config", "kintsugi.yaml"], { cwd: dir.path }), { code: 0, stdout: "kintsugi.yaml: ok\n", stderr: "" });
  });

  it("without a token the server answers 401 and the CLI says so", async () => {
    const res = await runCliInProcess(["--server", url, "repair-queue", "list"], { env: { ...process.env, KINTSUGI_TOKEN: "" } });
    assert.equal(res.code, 1);
    assert.match(
      res.stderr,
      /this server needs a token: set KINTSUGI_TOKEN=<token> in the environment \(or give --token <token> before the command; .*\) \(UNAUTHENTICATED\)/,
    );
    assert.doesNotMatch(res.stderr, /Authorization/, "the CLI's way, not an API client's header");
  });

  it("an unknown token is refused", async () => {
    const res = await runCliInProcess(["--server", url, "--token", "kintsugi_guessed", "repair-queue", "list"]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /unknown token \(UNAUTHENTICATED\)/);
    assert.doesNotMatch(res.stderr, /kintsugi_guessed/, "the token is not echoed");
  });

  it("--token and KINTSUGI_TOKEN are sent", async () => {
    assert.deepEqual(await runCliInProcess(["--server", url, "--token", operator, "repair-queue", "list"]), { code: 0, stdout: "null\n", stderr: "" });
    assert.deepEqual(await runCliInProcess(["--server", url, "repair-queue", "list"], { env: { ...process.env, KINTSUGI_TOKEN: operator } }), {
      code: 0,
      stdout: "null\n",
      stderr: "",
    });
  });

  it("an operator may disable auto-repair but not set a constraint; the admin token from the tokens file may", async () => {
    assert.equal((await runCliInProcess(["--server", url, "--token", operator, "auto-repair", "disable"])).code, 0);
    const refused = await runCliInProcess(["--server", url, "--token", operator, "constraints", "set", "minimum-workers", "2"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Mutation\.setConstraint needs the admin role; token "ci-bot" has the operator role \(FORBIDDEN\)/);
    assert.deepEqual(await runCliInProcess(["--server", url, "--token", admin, "constraints", "set", "minimum-workers", "2"]), {
      code: 0,
      stdout: "",
      stderr: "",
    });
  });
  it("repair-queue watch sends the token in connection_init, and stops on close 4401 without one", async () => {
    const watch = (token: string) => {
      const child = spawn(process.execPath, [KINTSUGI_BIN, "--server", url, "repair-queue", "watch"], { env: { ...process.env, KINTSUGI_TOKEN: token } });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      return { child, exited, err: () => stderr };
    };
    const allowed = watch(operator);
    try {
      await until(
        "it is watching",
        () => allowed.err(),
        (text) => /watching .* \(0 in the queue\)/.test(text),
      );
      allowed.child.kill("SIGTERM");
      assert.equal(await allowed.exited, 0);
    } finally {
      allowed.child.kill("SIGKILL");
    }
    const refused = watch("");
    try {
      assert.equal(await refused.exited, 1);
      assert.match(refused.err(), /subscription failed: this server needs a token: set KINTSUGI_TOKEN=<token> in the environment \(or give --token <token>/);
    } finally {
      refused.child.kill("SIGKILL");
    }
  });
});

describe("kintsugi serve: secure by default (the real binary)", () => {
  it("refuses to start on a non-loopback address without an auth section, saying what to add", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "k.yaml"), `listen: "0.0.0.0:0"\ndatabase: ./k.db\n`);
      const server = serveProcess(["--config", "k.yaml"], dir.path);
      assert.equal(await server.exitCode(), 1);
      assert.match(server.stderr(), /kintsugi: k\.yaml: auth: listen address 0\.0\.0\.0 is not a loopback address: add an auth section .*auth\.anonymous/);
    } finally {
      dir.remove();
    }
  });

  it("serves anonymous clients as operators on loopback without an auth section, and logs that it does", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "k.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./k.db\n`);
      const server = serveProcess(["--config", "k.yaml"], dir.path);
      let stdout = "";
      server.child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      try {
        const url = await server.url;
        assert.equal(
          (await runCliInProcess(["--server", url, "auto-repair", "disable"], { env: { ...process.env, KINTSUGI_TOKEN: "" } })).code,
          0,
          "an operator's command",
        );
        const refused = await runCliInProcess(["--server", url, "constraints", "set", "minimum-workers", "2"], { env: { ...process.env, KINTSUGI_TOKEN: "" } });
        assert.match(refused.stderr, /needs the admin role; an anonymous client has the operator role \(FORBIDDEN\)/);
        assert.match(stdout, /no auth section: clients without a token act as operators/);
      } finally {
        server.child.kill("SIGTERM");
        assert.equal(await server.exited, 0);
      }
    } finally {
      dir.remove();
    }
  });
});
