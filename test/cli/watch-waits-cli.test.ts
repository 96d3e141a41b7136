import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { startCli } from "../support/cli-process.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { operationOf, stepOf } from "../support/repair-world.js";
import { lastScreen, NO_SCRIPT, onTerminal } from "../support/pseudo-terminal.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";
import { subscriptionCount } from "../support/ws-subscriber.js";

describe("kintsugi repair-queue watch shows what each entry waits for (the real binary)", () => {
  let k: TestKintsugi;
  let dir: ReturnType<typeof tempDir>;
  let machines: SimulatedMachines;
  const add = (address: string) =>
    k.gql(`mutation($a: IPAddress!) { addRepairEntry(operation: "op", machineType: "m", address: $a) { index } }`, { a: address });
  const setQueue = (enabled: boolean) => k.gql(`mutation($e: Boolean!) { setRepairQueueEnabled(enabled: $e) }`, { e: enabled });

  before(async () => {
    dir = tempDir();
    machines = new SimulatedMachines(dir.path);
    const repair = {
      ...EMPTY_REPAIR_CONFIG,
      maxConcurrentRepairs: 3,
      repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(machines, [stepOf(machines, "held-reboot")])] }],
    };
    k = await startTestKintsugi({ repair, runner: { intervalSeconds: 0.1, healthCheckConcurrency: 4 } }, { startRunner: true });
    await setQueue(false);
    await add("10.0.5.1");
    await add("10.0.5.1");
    await until(
      "the runner published both waits",
      async () => (await k.gql(`{ searchRepairEntries { waitingFor { kind } } }`)).data?.["searchRepairEntries"],
      (es: Array<{ waitingFor: unknown }>) => es.every((e) => e.waitingFor !== null),
    );
  });
  after(async () => {
    machines.release("10.0.5.1");
    await k.dispose();
    dir.remove();
  });

  it("on a terminal, a line under each waiting entry's row says what it waits for, within the width", { skip: NO_SCRIPT }, async () => {
    const w = onTerminal(["--server", k.url, "repair-queue", "watch"], 80);
    try {
      await until("the table with the waits", () => lastScreen(w.out()).some((l) => l.startsWith("    waits (MACHINE_BUSY)")));
      const lines = lastScreen(w.out()).filter((l) => l !== "");
      for (const line of lines) assert.ok([...line].length <= 80, `${[...line].length} columns: ${line}`);
      const rowOf1 = lines.findIndex((l) => /^1 +10\.0\.5\.1 /.test(l));
      assert.ok(lines[rowOf1]?.endsWith("  added by an operator"), "the reason stays a column");
      assert.equal(lines[rowOf1 + 1], "    waits (QUEUE_DISABLED): the repair queue is disabled", lines.join("\n"));
      const rowOf2 = lines.findIndex((l) => /^2 +10\.0\.5\.1 /.test(l));
      assert.equal(lines[rowOf2 + 1], "    waits (MACHINE_BUSY): machine 10.0.5.1 is being repaired by entry 1", lines.join("\n"));
    } finally {
      w.child.kill("SIGKILL");
    }
  });

  it("through a pipe, a line for each new wait beside the event lines", async () => {
    const w = startCli(["--server", k.url, "repair-queue", "watch"]);
    try {
      await until("it is watching", () => w.err().includes("(2 in the queue)"));
      await until(
        "it follows the waits",
        () => subscriptionCount(k.url, "repairWaits"),
        (n) => (n ?? 0) >= 1,
      );
      await setQueue(true);
      await until("the new wait of entry 1", () => w.out().includes("WAITING COMMAND"));
      const lines = w.out().trim().split("\n");
      assert.ok(
        lines.some((l) => /^\S+Z #1 10\.0\.5\.1 op TRANSITION PROCESSING step 1\/1 WATCHING: step 1: running the repair command$/.test(l)),
        lines.join("\n"),
      );
      assert.ok(
        lines.some((l) => /^\S+Z #1 10\.0\.5\.1 op WAITING COMMAND: step 1: running the repair command$/.test(l)),
        lines.join("\n"),
      );
      assert.ok(!lines.some((l) => l.includes("#2 10.0.5.1 op WAITING")), "entry 2 still waits for the same thing: no line");
      const times = lines.map((l) => Date.parse(l.split(" ")[0] ?? ""));
      assert.ok(
        times.every((t, i) => !Number.isNaN(t) && (i === 0 || t >= (times[i - 1] as number))),
        `lines in time order:\n${lines.join("\n")}`,
      );
      w.child.kill("SIGTERM");
      assert.equal(await w.exited, 0);
    } finally {
      w.kill();
    }
  });
});
