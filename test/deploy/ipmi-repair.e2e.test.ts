import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { ipmiSimSkip, startIpmiSim, type IpmiSim } from "../support/ipmi-sim.js";
import { graphqlData as gql, serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

// Issue 28: a repair through the real `kintsugi serve` (bin/kintsugi.js, dist/, SQLite) runs the shipped
// deploy/commands/ipmi-power-cycle and ipmi-is-healthy against Debian's BMC simulator, the BMC's address coming from
// sabakan's spec.bmc.ipv4 through KINTSUGI_BMC_ADDRESS. ipmi_sim listens on a free port, not 623: the config names
// the port (and the credential files) in the command's argv through /usr/bin/env, as an operator would for a BMC on
// another port; the serve process's own environment has no KINTSUGI_* variable.

const COMMANDS = resolve("deploy/commands");
const MACHINE = "10.0.0.5";
const HOSTILE_MACHINE = "10.0.0.6";

interface Entry {
  status: string;
  history: Array<{ reason: string; detail: string | null }>;
}

const quoted = (argv: readonly string[]) => `[${argv.map((a) => JSON.stringify(a)).join(", ")}]`;

/** The shipped command `name` with the simulator's port and credential files, as the config's argv. */
const command = (sim: IpmiSim, name: string) => ["/usr/bin/env", ...Object.entries(sim.commandEnv).map(([k, v]) => `${k}=${v}`), join(COMMANDS, name)];

function configYaml(sim: IpmiSim, sabakanUrl: string): string {
  return `listen: "127.0.0.1:0"
database: ./kintsugi.db
runner:
  interval_seconds: 0.2
sabakan:
  url: ${JSON.stringify(sabakanUrl)}
  schedule: "0 0 1 1 *"
repair:
  repair_procedures:
    - machine_types: [IPMI-2.0]
      repair_operations:
        - operation: power-cycle
          repair_steps:
            - repair_command: ${quoted(command(sim, "ipmi-power-cycle"))}
              command_timeout_seconds: 30
              watch_seconds: 60
          health_check_command: ${quoted(command(sim, "ipmi-is-healthy"))}
          command_timeout_seconds: 30
`;
}

/** This process's environment without KINTSUGI_* variables, so the BMC address can come only from sabakan. */
function serveEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KINTSUGI_")));
}

describe("an IPMI power cycle through kintsugi against ipmi_sim", { skip: ipmiSimSkip() }, () => {
  it("repairs a machine that is off: the BMC from sabakan is power-cycled, the health check sees it on, the entry succeeds; a hostile BMC address is never used", async () => {
    const dir = tempDir("kintsugi-ipmi-repair-");
    const sabakan = await startFakeSabakan();
    let sim: IpmiSim | undefined;
    let server: ServeProcess | undefined;
    try {
      sim = await startIpmiSim(dir.path, 0);
      sabakan.addMachine({ serial: "ipmi-1", rack: 0, indexInRack: 5, ipv4: [MACHINE], bmcType: "IPMI-2.0", bmcIPv4: "127.0.0.1" });
      sabakan.addMachine({ serial: "ipmi-2", rack: 0, indexInRack: 6, ipv4: [HOSTILE_MACHINE], bmcType: "IPMI-2.0", bmcIPv4: "127.0.0.1 -p 1" });
      writeFileSync(join(dir.path, "kintsugi.yaml"), configYaml(sim, sabakan.url));
      server = serveProcess(["--config", "kintsugi.yaml"], dir.path, serveEnv());
      const url = await server.url;
      const add = async (address: string) =>
        (await gql<{ addRepairEntry: { index: string } }>(url, `mutation($a: IPAddress!) { addRepairEntry(operation: "power-cycle", machineType: "IPMI-2.0", address: $a) { index } }`, { a: address })).addRepairEntry.index;
      const entry = async (index: string) => (await gql<{ repairEntry: Entry }>(url, `query($i: ID!) { repairEntry(index: $i) { status history { reason detail } } }`, { i: index })).repairEntry;
      const finished = (e: Entry) => e.status === "SUCCEEDED" || e.status === "FAILED";

      const index = await add(MACHINE);
      const done = await until("the entry finishes", () => entry(index), finished, 60_000);
      assert.equal(done.status, "SUCCEEDED", JSON.stringify(done.history, null, 2));
      const reasons = done.history.map((h) => h.reason);
      assert.ok(reasons.some((r) => /step 1: repair command succeeded/.test(r)), reasons.join("\n"));
      assert.match(reasons.at(-1) ?? "", /the health check reports the machine healthy/);
      const sets = sim.chassisCalls().filter((call) => call.startsWith("set "));
      assert.deepEqual(sets, ["set power 0", "set power 1"], "the simulated chassis was power-cycled once: off, then on");
      assert.equal(sim.power(), 1);

      const hostile = await add(HOSTILE_MACHINE);
      const refused = await until("the hostile machine's entry finishes", () => entry(hostile), finished, 60_000);
      assert.equal(refused.status, "FAILED", JSON.stringify(refused.history, null, 2));
      assert.match(JSON.stringify(refused.history), /KINTSUGI_BMC_ADDRESS is not set/, "the command stopped for want of an address");
      assert.deepEqual(sim.chassisCalls().filter((call) => call.startsWith("set ")), sets, "and the chassis was not touched again");
      server.child.kill("SIGTERM");
      assert.equal(await server.exited, 0);
    } finally {
      if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      sim?.stop();
      await sabakan.close();
      dir.remove();
    }
  });
});
