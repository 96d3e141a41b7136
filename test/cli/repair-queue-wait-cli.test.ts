import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { NOW } from "../support/fixtures.js";
import { startCli } from "../support/cli-process.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import type { CliResult } from "../support/run-cli.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { withSideStore } from "../support/side-store.js";
import { until } from "../support/until.js";

const ADD_ENTRY = `mutation($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`;

/** Every line printed, each "repair queue entries: N", at least one. */
function assertEntryCounts(stdout: string, count: number): void {
  const lines = stdout.trimEnd().split("\n");
  assert.ok(lines.length >= 1 && lines.every((line) => line === `repair queue entries: ${count}`), JSON.stringify(stdout));
}

// ckecli's own strings and exit codes (pkg/ckecli/cmd/repair_queue_wait.go); ckecli's errors exit 1.
describe("kintsugi repair-queue wait (as ckecli repair-queue wait)", () => {
  let k: TestKintsugi;
  const wait = (...args: string[]) => runCliInProcess(["--server", k.url, "repair-queue", "wait", ...args]);
  before(async () => {
    k = await startTestKintsugi({}, { now: () => NOW });
  });
  after(() => k.dispose());

  it("says the queue is empty and succeeds at once, whatever the timeout", async () => {
    for (const args of [[], ["--timeout-seconds", "0"], ["--timeout-seconds", "3600"]]) {
      assert.deepEqual(await wait(...args), { code: 0, stdout: "repair queue is empty\n", stderr: "" }, args.join(" "));
    }
  });

  it("lists an empty queue as ckecli does: null", async () => {
    assert.deepEqual(await runCliInProcess(["--server", k.url, "repair-queue", "list"]), { code: 0, stdout: "null\n", stderr: "" });
  });

  it("checks once with --timeout-seconds 0 and fails without waiting when entries are left", async () => {
    for (const address of ["10.0.0.1", "10.0.0.2"]) assert.equal((await k.gql(ADD_ENTRY, { a: address })).errors, undefined);
    assert.deepEqual(await wait("--timeout-seconds", "0"), { code: 1, stdout: "", stderr: "kintsugi: repair queue is not empty\n" });
  });

  const timeouts: Array<[string, string[], string]> = [
    ["ckecli's flags", ["--timeout-seconds", "1", "--interval-seconds", "1"], "1s"],
    ["kintsugi's duration spellings", ["--timeout", "1500ms", "--interval", "500ms"], "1.5s"],
    ["a mix of both", ["--timeout", "1s", "--interval-seconds", "1"], "1s"],
  ];
  for (const [name, args, printed] of timeouts) {
    it(`prints the count after each check and times out with ckecli's message: ${name}`, async () => {
      const res = await wait(...args);
      assert.equal(res.code, 1);
      assertEntryCounts(res.stdout, 2);
      assert.equal(res.stderr, `kintsugi: timed out waiting for repair queue to become empty after ${printed}\n`);
    });
  }

  it("counts finished and deleted entries as ckecli does: only an empty queue ends the wait", async () => {
    await withSideStore(k, async (side) => {
      await side.transition(1, { status: "succeeded", deleted: true });
      await side.transition(2, { status: "failed" });
    });
    const res = await wait("--timeout-seconds", "0");
    assert.deepEqual(res, { code: 1, stdout: "", stderr: "kintsugi: repair queue is not empty\n" });
  });

  it("waits until the last entry is dequeued, then says the queue is empty and succeeds", async () => {
    const w = startCli(["--server", k.url, "repair-queue", "wait", "--timeout-seconds", "120"]);
    try {
      await until("the first check", () => w.out().includes("repair queue entries: 2\n"));
      await withSideStore(k, async (side) => {
        for (const index of [1, 2]) await side.entries.dequeue(index, () => "test", NOW, "test");
      });
      assert.equal(await w.exited, 0, w.err());
      const lines = w.out().trimEnd().split("\n");
      assert.equal(lines.at(-1), "repair queue is empty");
      assertEntryCounts(lines.slice(0, -1).join("\n"), 2);
      assert.equal(w.err(), "");
    } finally {
      w.kill();
    }
  });

  const refusals: Array<[string, string[], RegExp]> = [
    ["a negative timeout", ["--timeout-seconds", "-1"], /^kintsugi: --timeout-seconds must not be negative\n$/],
    ["a zero interval", ["--interval-seconds", "0"], /^kintsugi: --interval-seconds must be greater than zero\n$/],
    ["a zero interval, as a duration", ["--interval", "0s"], /^kintsugi: --interval must be greater than zero\n$/],
    ["an interval past node's timers", ["--interval-seconds", "2147484"], /--interval-seconds must be at most 2147483 seconds/],
    [
      "seconds that are no number",
      ["--timeout-seconds", "soon"],
      /option '--timeout-seconds <SECONDS>' argument 'soon' is invalid\. must be a whole number of seconds/,
    ],
    ["seconds with a unit", ["--interval-seconds", "2s"], /option '--interval-seconds <SECONDS>' argument '2s' is invalid/],
    ["a duration that is none", ["--timeout", "soon"], /invalid duration "soon"/],
    [
      "both spellings of the timeout",
      ["--timeout", "5s", "--timeout-seconds", "5"],
      /option '--timeout <DURATION>' cannot be used with option '--timeout-seconds <SECONDS>'/,
    ],
    ["an argument", ["now"], /too many arguments/],
  ];
  for (const [name, args, pattern] of refusals) {
    it(`refuses ${name} with exit code 1 before asking the server`, async () => {
      const res: CliResult = await wait(...args);
      assert.equal(res.code, 1);
      assert.equal(res.stdout, "");
      assert.match(res.stderr, pattern);
    });
  }

  it("shows ckecli's flags with their defaults in seconds, and the duration spellings without a default", async () => {
    const res = await wait("--help");
    assert.equal(res.code, 0);
    const help = res.stdout.replace(/\s+/g, " ");
    assert.match(help, /--timeout-seconds <SECONDS> the number of seconds to wait before giving up; 0 = check once and do not wait \(default: 30\)/);
    assert.match(help, /--interval-seconds <SECONDS> the number of seconds between repair queue checks \(default: 1\)/);
    assert.match(help, /--timeout <DURATION> --timeout-seconds as a duration \(e\.g\. 90s, 10m, 1h30m\) --interval/);
  });
});
