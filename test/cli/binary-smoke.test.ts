import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { VERSION } from "../../src/version.js";
import { startCli } from "../support/cli-process.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { runCli } from "../support/run-cli.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

// The CLI's tests drive its commands in-process (test/support/in-process-cli.ts); these few run the real binary, as an
// operator does, so what only the binary does (bin/kintsugi.js, dist/, the process's exit code) is covered, and check
// that the in-process runner prints what the binary prints.
describe("the real kintsugi binary (smoke tests)", () => {
  const dir = tempDir();
  let server: ServeProcess;
  let url: string;

  before(async () => {
    writeFileSync(
      join(dir.path, "k.yaml"),
      `listen: "127.0.0.1:0"\ndatabase: ./k.db\nrepair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n` +
        `        - operation: unreachable\n          repair_steps: [{ repair_command: ["true"], watch_seconds: 600 }]\n          health_check_command: ["false"]\n`,
    );
    server = serveProcess(["--config", "k.yaml"], dir.path);
    url = await server.url;
  });
  after(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
    dir.remove();
  });

  it("--help lists the commands, exit 0", async () => {
    const res = await runCli(["--help"]);
    assert.equal(res.code, 0, res.stderr);
    for (const command of ["serve", "check-config", "repair-queue", "auto-repair", "constraints", "completion"])
      assert.match(res.stdout, new RegExp(`\\n  ${command}\\b`));
  });

  it("--version prints the package's version, exit 0", async () => {
    assert.deepEqual(await runCli(["--version"]), { code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("runs a command against a real kintsugi serve", async () => {
    const added = await runCli(["--server", url, "repair-queue", "add", "unreachable", "qemu", "10.0.0.1"]);
    assert.equal(added.code, 0, added.stderr);
    const listed = await runCli(["--server", url, "repair-queue", "list"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as Array<{ address: string }>).map((e) => e.address),
      ["10.0.0.1"],
    );
  });

  const errors: Array<[string, (server: string) => string[], RegExp]> = [
    ["a usage error", () => ["repair-queue", "add", "unreachable"], /error: missing required argument 'MACHINE_TYPE'/],
    ["the server's refusal", (server) => ["--server", server, "repair-queue", "delete", "77"], /^kintsugi: repair entry 77 not found \(NOT_FOUND\)\n$/],
  ];
  for (const [name, args, message] of errors) {
    it(`exits 1 on ${name}, the message on stderr`, async () => {
      const res = await runCli(args(url));
      assert.equal(res.code, 1);
      assert.equal(res.stdout, "");
      assert.match(res.stderr, message);
    });
  }

  it("prints the completion scripts", async () => {
    const bash = await runCli(["completion", "bash"]);
    assert.equal(bash.code, 0, bash.stderr);
    assert.match(bash.stdout, /\ncomplete -F _kintsugi kintsugi\n/);
    const zsh = await runCli(["completion", "zsh"]);
    assert.equal(zsh.code, 0, zsh.stderr);
    assert.match(zsh.stdout, /^#compdef kintsugi\n/);
  });

  // The same bytes and exit code in-process as from the binary: what the in-process tests see is what operators see.
  const same: Array<[string, (server: string) => string[]]> = [
    ["help", () => ["repair-queue", "--help"]],
    ["a usage error with help after it", () => ["machine", "hold", "10.0.0.2"]],
    ["an answer", (server) => ["--server", server, "repair-queue", "list"]],
    ["the server's refusal", (server) => ["--server", server, "repair-queue", "delete", "x"]],
  ];
  for (const [name, args] of same) {
    it(`prints the same in-process as the binary: ${name}`, async () => {
      const binary = await runCli(args(url));
      assert.deepEqual(await runCliInProcess(args(url)), binary);
    });
  }

  // One command of each group whose tests run in-process: answers and refusals with the binary's exit codes.
  const groups: Array<[string, string[], { code: number; stdout: string; stderr: RegExp }]> = [
    ["sabakan", ["sabakan", "is-enabled"], { code: 0, stdout: "true\n", stderr: /^$/ }],
    ["cluster", ["cluster", "get"], { code: 1, stdout: "", stderr: /^kintsugi: no cluster configuration has been generated yet/ }],
    ["auto-repair's refusal", ["auto-repair", "get-variables"], { code: 1, stdout: "", stderr: /^kintsugi: not found\n$/ }],
    ["constraints", ["cstr", "set", "maximum-repair-queue-entries", "ten"], { code: 1, stdout: "", stderr: /"ten" is not an integer/ }],
  ];
  for (const [name, args, want] of groups) {
    it(`runs ${name}: ${args.join(" ")}`, async () => {
      const res = await runCli(["--server", url, ...args]);
      assert.equal(res.code, want.code, res.stderr);
      assert.equal(res.stdout, want.stdout);
      assert.match(res.stderr, want.stderr);
    });
  }

  it("repair-queue watch prints a line per event through a pipe and exits 0 on SIGTERM", async () => {
    const w = startCli(["--server", url, "repair-queue", "watch"]);
    try {
      await until("it is subscribed", () => w.err().includes("kintsugi: watching"));
      assert.equal((await runCliInProcess(["--server", url, "repair-queue", "add", "unreachable", "qemu", "10.0.0.8"])).code, 0);
      await until("the event line", () => / #\d+ 10\.0\.0\.8 unreachable CREATED /.test(w.out()));
      w.child.kill("SIGTERM");
      assert.equal(await w.exitWithin(20_000), 0, w.err());
    } finally {
      w.kill();
    }
  });
});
