import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startCliInProcess, type InProcessCommand } from "../support/in-process-cli.js";
import { startHoldingProxy } from "../support/holding-proxy.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { operationOf, startRepairWorld, stepOf } from "../support/repair-world.js";
import { lastScreen, NO_SCRIPT, onTerminal } from "../support/pseudo-terminal.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

const add = (k: TestKintsugi, address: string, operation = "unreachable") =>
  k.gql(`mutation($a: IPAddress!, $o: String!) { addRepairEntry(operation: $o, machineType: "qemu", address: $a) { index } }`, { a: address, o: operation });

describe("kintsugi repair-queue watch (in-process as on a pipe; on a terminal, the real binary)", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi();
    await add(k, "10.0.0.1");
  });
  after(() => k.dispose());

  it("prints one line per event when its output is not a terminal", async () => {
    const w = startCliInProcess(["--server", k.url, "repair-queue", "watch"]);
    try {
      await until("it is subscribed", () => w.err().includes("(1 in the queue)"));
      await add(k, "10.0.0.2", "unhealthy");
      await k.gql(`mutation { deleteRepairEntry(index: "1") { index } }`);
      await until("two lines", () => w.out().trim().split("\n").length >= 2);
      const lines = w.out().trim().split("\n");
      assert.match(lines[0] ?? "", /^\S+Z #2 10\.0\.0\.2 unhealthy CREATED QUEUED step 1\/1 WAITING: added by an operator$/);
      assert.match(lines[1] ?? "", /#1 10\.0\.0\.1 unreachable DELETE_REQUESTED QUEUED step 1\/1 WAITING deleted: deletion requested by an operator$/);
      assert.equal(await w.stop(), 0);
    } finally {
      await w.stop();
    }
  });

  it("follows one entry only when given its index", async () => {
    const w = startCliInProcess(["--server", k.url, "repair-queue", "watch", "2"]);
    try {
      await until("it is subscribed", () => w.err().includes("watching"));
      await add(k, "10.0.0.3", "unhealthy");
      await k.gql(`mutation { deleteRepairEntry(index: "2") { index } }`);
      await until("a line", () => w.out().includes("#2"));
      assert.doesNotMatch(w.out(), /#3/);
    } finally {
      await w.stop();
    }
  });

  it("says so when the entry does not exist", async () => {
    const w = startCliInProcess(["--server", k.url, "repair-queue", "watch", "99"]);
    assert.equal(await w.exited, 1);
    assert.match(w.err(), /repair entry 99 not found \(NOT_FOUND\)/);
  });

  it("redraws a table in place on a terminal", { skip: NO_SCRIPT }, async () => {
    const w = onTerminal(["--server", k.url, "repair-queue", "watch"], 160);
    try {
      await until("the table", () => w.out().includes("INDEX") && w.out().includes("10.0.0.3"));
      await add(k, "10.0.0.4", "unhealthy");
      await until("a redraw with the new entry", () => w.out().split("\x1b[2J").length >= 3 && w.out().includes("10.0.0.4"));
      const last = lastScreen(w.out()).join("\n");
      assert.match(last, /kintsugi repair queue at http:\/\/127\.0\.0\.1:\d+ — 4 entries/);
      assert.match(last, /REASON/);
      assert.match(last, /recent events:/);
    } finally {
      w.child.kill("SIGKILL");
    }
  });

  it("keeps every reason visible on an 80-column terminal, no line longer than 80", { skip: NO_SCRIPT }, async () => {
    const w = onTerminal(["--server", k.url, "repair-queue", "watch"], 80);
    try {
      await until("the table", () => w.out().includes("INDEX"));
      await k.gql(`mutation { deleteRepairEntry(index: "3") { index } }`);
      await until("the redraw after the deletion", () => lastScreen(w.out()).some((l) => l.includes("#3 10.0.0.3 DELETE_REQUESTED:")));
      const lines = lastScreen(w.out()).filter((l) => l !== "");
      for (const line of lines) assert.ok([...line].length <= 80, `${[...line].length} columns: ${line}`);
      const rowOf3 = lines.findIndex((l) => /^3 +10\.0\.0\.3 /.test(l));
      assert.equal(lines[rowOf3 + 1], "    deletion requested by an operator", `the reason under its row:\n${lines.join("\n")}`);
      const rowOf4 = lines.findIndex((l) => /^4 +10\.0\.0\.4 /.test(l));
      assert.equal(lines[rowOf4 + 1], "    added by an operator");
      assert.ok(
        lines.some((l) => /^ {2}\d\d:\d\d:\d\d #3 10\.0\.0\.3 DELETE_REQUESTED: deletion requested by an operator$/.test(l)),
        lines.join("\n"),
      );
    } finally {
      w.child.kill("SIGKILL");
    }
  });
});

describe("kintsugi repair-queue watch across a server restart (in-process, as on a pipe)", () => {
  it("says it is reconnecting, reconnects to the restarted server and shows what changes after", { timeout: 180_000 }, async () => {
    const dir = tempDir();
    const databasePath = join(dir.path, "kintsugi.db");
    let k: TestKintsugi | null = await startTestKintsugi({}, { databasePath });
    let w: InProcessCommand | null = null;
    try {
      await add(k, "10.0.0.1");
      const { port } = k;
      w = startCliInProcess(["--server", k.url, "repair-queue", "watch"]);
      const watch = w;
      await until("it is watching", () => watch.err().includes("(1 in the queue)"));
      await k.dispose();
      k = null;
      await until("it says it is reconnecting", () => /connection to http:\/\/127\.0\.0\.1:\d+ lost \(.*\); reconnecting\n/.test(watch.err()));
      assert.equal(await Promise.race([watch.exited, Promise.resolve("running")]), "running", "it is still running");
      k = await startTestKintsugi({ listen: { host: "127.0.0.1", port } }, { databasePath });
      await until("it has reconnected", () => watch.err().includes("reconnected to"), Boolean, 60_000);
      await add(k, "10.0.0.2", "unhealthy");
      await until("it shows the entry added after the restart", () => /#2 10\.0\.0\.2 unhealthy CREATED QUEUED/.test(watch.out()));
      const news = watch
        .err()
        .split("\n")
        .filter((l) => l !== "");
      assert.equal(news.length, 3, news.join("\n"));
      assert.match(news[0] ?? "", /^kintsugi: watching http:\/\/127\.0\.0\.1:\d+ \(1 in the queue\)$/);
      assert.match(news[1] ?? "", /^kintsugi: connection to http:\/\/127\.0\.0\.1:\d+ lost \((closed with \d+.*|.*ECONNREFUSED.*)\); reconnecting$/);
      assert.match(
        news[2] ?? "",
        /^kintsugi: reconnected to http:\/\/127\.0\.0\.1:\d+ after \d+s; watching \(1 in the queue\), read afresh: events while disconnected are not shown$/,
      );
      assert.equal(await watch.stop(), 0);
    } finally {
      await w?.stop();
      await k?.dispose();
      dir.remove();
    }
  });
});

describe("kintsugi repair-queue watch: no change falls between its read of the queue and its subscriptions", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi();
    await add(k, "10.0.0.1");
  });
  after(() => k.dispose());
  const queued = async () => ((await k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"] as unknown[]).length;

  it("reads the queue only once its subscriptions listen: an entry added while they are on their way is in what it knows", async () => {
    const proxy = await startHoldingProxy(k.url);
    const w = startCliInProcess(["--server", proxy.url, "repair-queue", "watch"]);
    try {
      const before = await queued();
      // Its two subscriptions are held on their way to the server, and it has done what comes next: read the queue,
      // or ask whether they listen.
      await until("its subscriptions are held", () => {
        const held = proxy.heldOperations();
        return held.filter((m) => m.includes("subscription")).length >= 2 && (held.some((m) => m.includes("query Listening")) || w.err().includes("watching"));
      });
      await add(k, "10.0.1.1");
      proxy.releaseOperations();
      await until("it knows the entry", () => w.out().includes(" 10.0.1.1 ") || w.err().includes(`(${before + 1} in the queue)`));
    } finally {
      await w.stop();
      await proxy.close();
    }
  });

  it("applies what its subscriptions deliver while it reads the queue after the read, which may be older", async () => {
    const proxy = await startHoldingProxy(k.url);
    proxy.releaseOperations();
    proxy.holdAnswers((body) => body.includes("query WatchEntries"));
    const w = startCliInProcess(["--server", proxy.url, "repair-queue", "watch"]);
    try {
      const before = await queued();
      await until("its read of the queue is held", () => proxy.heldAnswers().length === 1);
      await add(k, "10.0.1.2");
      await until("the entry's event came", () => w.out().includes(" 10.0.1.2 "));
      proxy.releaseAnswers();
      await until("it is watching", () => w.err().includes("watching"));
      assert.match(w.err(), new RegExp(`\\(${before + 1} in the queue\\)`), "the older read did not drop the entry its event added");
    } finally {
      await w.stop();
      await proxy.close();
    }
  });
});

describe("kintsugi repair-queue watch: why a repair failed (a real failing command, in-process as on a pipe)", () => {
  it("the failure's line ends with the tail of the command's stderr", async () => {
    const world = await startRepairWorld((m) => ({ repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(m, [stepOf(m, "fail")])] }] }));
    const w = startCliInProcess(["--server", world.k.url, "repair-queue", "watch"]);
    try {
      await until("it is subscribed", () => w.err().includes("(0 in the queue)"));
      await world.add("10.0.0.5");
      await until("the entry failed", () => / FAILED /.test(w.out()));
      const failed = w
        .out()
        .split("\n")
        .find((line) => / TRANSITION FAILED /.test(line));
      assert.match(
        failed ?? "",
        /#1 10\.0\.0\.5 op TRANSITION FAILED step 1\/1 WATCHING: step 1: repair command failed: exit code 3; stderr: BMC of 10\.0\.0\.5 does not answer$/,
      );
    } finally {
      await w.stop();
      await world.dispose();
    }
  });
});
