import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { SimulatedMachines } from "../support/machine-script.js";
import { graphqlData as gql, serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

interface Entry {
  index: string;
  address: string;
  status: string;
  history: Array<{ kind: string; reason: string | null }>;
}

const ADDRESSES = ["10.9.0.1", "10.9.0.2", "10.9.0.3", "10.9.0.4", "10.9.0.5", "10.9.0.6"];

describe("crash recovery (the real server process, SIGKILL)", () => {
  it("loses no entry, duplicates none, runs no repair command twice, and finishes every entry after a restart", async () => {
    const dir = tempDir();
    const machines = new SimulatedMachines(dir.path);
    const quoted = (argv: string[]) => `[${argv.map((a) => JSON.stringify(a)).join(", ")}]`;
    writeFileSync(
      join(dir.path, "kintsugi.yaml"),
      `listen: "127.0.0.1:0"
database: ./kintsugi.db
runner:
  interval_seconds: 0.1
  inherited_command_margin_seconds: 6
repair:
  max_concurrent_repairs: 3
  repair_procedures:
    - machine_types: [m]
      repair_operations:
        - operation: op
          repair_steps:
            # A command in flight dies with the server; the restarted one waits it out (its timeout and the margin),
            # never runs it again, and moves on to the next step.
            - repair_command: ${quoted(machines.command("slow-fix", 1))}
              command_timeout_seconds: 3
              watch_seconds: 1
            - repair_command: ${quoted(machines.command("fix"))}
              watch_seconds: 60
          health_check_command: ${quoted(machines.command("health"))}
`,
    );
    let server: ServeProcess | undefined;
    try {
      server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
      let url = await server.url;
      for (const address of ADDRESSES) {
        await gql(url, `mutation($a: IPAddress!) { addRepairEntry(operation: "op", machineType: "m", address: $a) { index } }`, { a: address });
      }
      await until(
        "repairs are in flight",
        () => machines.log().filter((l) => l.startsWith("slow-fix ")).length,
        (n) => n >= 2,
        60_000,
      );
      server.child.kill("SIGKILL");
      assert.equal(await server.exited, null, "killed, not exited");
      const startedBeforeCrash = machines.log().filter((l) => l.startsWith("slow-fix ")).length;
      assert.ok(startedBeforeCrash < ADDRESSES.length, "some entries had not started when the server died");

      server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
      url = await server.url;
      const entries = async () =>
        (await gql<{ searchRepairEntries: Entry[] }>(url, `{ searchRepairEntries { index address status history { kind reason } } }`)).searchRepairEntries;
      await until(
        "every entry is finished",
        entries,
        (es) => es.length === ADDRESSES.length && es.every((e) => e.status === "SUCCEEDED" || e.status === "FAILED"),
        60_000,
      );

      const final = await entries();
      assert.deepEqual(
        final.map((e) => e.index),
        ["1", "2", "3", "4", "5", "6"],
        "no entry lost or duplicated",
      );
      assert.deepEqual(
        final.map((e) => e.address),
        ADDRESSES,
      );
      assert.deepEqual(
        final.map((e) => e.status),
        ADDRESSES.map(() => "SUCCEEDED"),
      );
      for (const e of final) assert.equal(e.history.filter((h) => h.kind === "CREATED").length, 1);
      for (const e of final) {
        // The kill may land after a command's start was recorded and before it wrote its line: the lifeline killed it
        // with the server, the restarted server says so and does not run it again (its outcome is unknown).
        const interrupted = e.history.some((h) => /^step 1: .*repair command .* was interrupted/.test(h.reason ?? ""));
        const runs = machines.runs("slow-fix", e.address);
        if (interrupted) assert.ok(runs <= 1, `the interrupted repair command of ${e.address} was not run again`);
        else assert.equal(runs, 1, `the repair command of ${e.address} ran once`);
      }
      server.child.kill("SIGTERM");
      assert.equal(await server.exited, 0);
    } finally {
      if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      dir.remove();
    }
  });
});
