import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { KINTSUGI_BIN } from "../support/run-cli.js";

function watch(args: string[], viaTty: boolean) {
  const argv = [KINTSUGI_BIN, ...args];
  // `script` gives the command a pseudo-terminal, as an operator's shell would.
  const child = viaTty
    ? spawn("script", ["-qfec", [process.execPath, ...argv].map((a) => `'${a}'`).join(" "), "/dev/null"], { env: { ...process.env, COLUMNS: "160", LINES: "40" } })
    : spawn(process.execPath, argv);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("kintsugi repair-queue watch (the real binary)", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi();
    await k.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.0.0.1") { index } }`);
  });
  after(() => k.dispose());

  it("prints one line per event when its output is not a terminal", async () => {
    const w = watch(["--server", k.url, "repair-queue", "watch"], false);
    try {
      await until("it is subscribed", () => w.err().includes("(1 in the queue)"));
      await k.gql(`mutation { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: "10.0.0.2") { index } }`);
      await k.gql(`mutation { deleteRepairEntry(index: "1") { index } }`);
      await until("two lines", () => w.out().trim().split("\n").length >= 2);
      const lines = w.out().trim().split("\n");
      assert.match(lines[0] ?? "", /^\S+Z #2 10\.0\.0\.2 unhealthy CREATED QUEUED step 1\/1 WAITING: added by an operator$/);
      assert.match(lines[1] ?? "", /#1 10\.0\.0\.1 unreachable DELETE_REQUESTED QUEUED step 1\/1 WAITING deleted: deletion requested by an operator$/);
      w.child.kill("SIGTERM");
      assert.equal(await w.exited, 0);
    } finally {
      w.child.kill("SIGKILL");
    }
  });

  it("follows one entry only when given its index", async () => {
    const w = watch(["--server", k.url, "repair-queue", "watch", "2"], false);
    try {
      await until("it is subscribed", () => w.err().includes("watching") );
      await k.gql(`mutation { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: "10.0.0.3") { index } }`);
      await k.gql(`mutation { deleteRepairEntry(index: "2") { index } }`);
      await until("a line", () => w.out().includes("#2"));
      assert.doesNotMatch(w.out(), /#3/);
    } finally {
      w.child.kill("SIGKILL");
    }
  });

  it("says so when the entry does not exist", async () => {
    const w = watch(["--server", k.url, "repair-queue", "watch", "99"], false);
    assert.equal(await w.exited, 1);
    assert.match(w.err(), /repair entry 99 not found \(NOT_FOUND\)/);
  });

  it("redraws a table in place on a terminal", { skip: existsSync("/usr/bin/script") ? false : "`script` (util-linux) not found" }, async () => {
    const w = watch(["--server", k.url, "repair-queue", "watch"], true);
    try {
      await until("the table", () => w.out().includes("INDEX") && w.out().includes("10.0.0.3"));
      await k.gql(`mutation { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: "10.0.0.4") { index } }`);
      await until("a redraw with the new entry", () => w.out().split("\x1b[2J").length >= 3 && w.out().includes("10.0.0.4"));
      const last = w.out().split("\x1b[2J").at(-1) ?? "";
      assert.match(last, /kintsugi repair queue at http:\/\/127\.0\.0\.1:\d+ — 4 entries/);
      assert.match(last, /recent events:/);
    } finally {
      w.child.kill("SIGKILL");
    }
  });
});
