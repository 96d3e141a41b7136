import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { findProgram } from "../support/find-program.js";
import { startFakeSabakan, type FakeMachineSpec } from "../support/fake-sabakan.js";
import { ipmiSimSkip, startIpmiSim } from "../support/ipmi-sim.js";
import { startRedfishBmc } from "../support/redfish-bmc.js";
import { graphqlData as gql, serveProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

// A repair through the real `kintsugi serve` (bin/kintsugi.js, dist/, SQLite) runs the shipped BMC
// commands of deploy/commands, the BMC's address coming from sabakan's spec.bmc.ipv4 through KINTSUGI_BMC_ADDRESS:
// IPMI against Debian's BMC simulator (ipmi_sim), Redfish (curl, https with the BMC's CA) against a small Redfish
// server. The BMCs listen on free ports on 127.0.0.1, not 623 or 443: the config names the port (and the credential
// files) in the command's argv through /usr/bin/env, as an operator would for a BMC on another port; the serve
// process's own environment has no KINTSUGI_* variable, so the address can come only from sabakan.

const COMMANDS = resolve("deploy/commands");

interface Entry {
  status: string;
  history: Array<{ reason: string; detail: string | null }>;
}

interface World {
  /** Adds an entry for the machine at `address` through GraphQL and resolves with it once it has finished. */
  repair(address: string): Promise<Entry>;
}

/** The shipped health checks: what they check, by name. */
const HEALTH_CHECKS = { ipmi: "ipmi-power-is-on", redfish: "redfish-power-on-health-ok" } as const;

const quoted = (argv: readonly string[]) => `[${argv.map((a) => JSON.stringify(a)).join(", ")}]`;

/** The shipped command `name` run with `env` added, as the config's argv. */
const command = (env: Readonly<Record<string, string>>, name: string) => [
  "/usr/bin/env",
  ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
  join(COMMANDS, name),
];

function configYaml(sabakanUrl: string, env: Readonly<Record<string, string>>, protocol: "ipmi" | "redfish"): string {
  return `listen: "127.0.0.1:0"
database: ./kintsugi.db
runner:
  interval_seconds: 0.2
sabakan:
  url: ${JSON.stringify(sabakanUrl)}
  schedule: "0 0 1 1 *"
repair:
  repair_procedures:
    - machine_types: [IPMI-2.0, iDRAC-9]
      repair_operations:
        - operation: power-cycle
          repair_steps:
            - repair_command: ${quoted(command(env, `${protocol}-power-cycle`))}
              command_timeout_seconds: 30
              watch_seconds: 60
          health_check_command: ${quoted(command(env, HEALTH_CHECKS[protocol]))}
          command_timeout_seconds: 30
`;
}

/** `kintsugi serve` in `dir` with the test sabakan serving `machines`, the repair commands given `env`; then `use`. */
async function withKintsugi(
  dir: string,
  machines: readonly FakeMachineSpec[],
  env: Readonly<Record<string, string>>,
  protocol: "ipmi" | "redfish",
  use: (w: World) => Promise<void>,
): Promise<void> {
  const sabakan = await startFakeSabakan();
  for (const m of machines) sabakan.addMachine(m);
  writeFileSync(join(dir, "kintsugi.yaml"), configYaml(sabakan.url, env, protocol));
  const server = serveProcess(["--config", "kintsugi.yaml"], dir, Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KINTSUGI_"))));
  try {
    const url = await server.url;
    const finished = (e: Entry) => e.status === "SUCCEEDED" || e.status === "FAILED";
    await use({
      async repair(address) {
        const { addRepairEntry } = await gql<{ addRepairEntry: { index: string } }>(
          url,
          `mutation($a: IPAddress!) { addRepairEntry(operation: "power-cycle", machineType: "IPMI-2.0", address: $a) { index } }`,
          { a: address },
        );
        const entry = async () =>
          (
            await gql<{ repairEntry: Entry }>(url, `query($i: ID!) { repairEntry(index: $i) { status history { reason detail } } }`, {
              i: addRepairEntry.index,
            })
          ).repairEntry;
        return until(`the entry for ${address} finishes`, entry, finished, 60_000);
      },
    });
    server.child.kill("SIGTERM");
    assert.equal(await server.exited, 0);
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    await sabakan.close();
  }
}

const reasonsOf = (e: Entry) => e.history.map((h) => h.reason);

describe("a power cycle through kintsugi, the BMC's address from sabakan", () => {
  it("IPMI against ipmi_sim: the machine that is off is power-cycled and succeeds; a hostile BMC address is never used", { skip: ipmiSimSkip() }, async () => {
    const dir = tempDir("kintsugi-ipmi-repair-");
    const sim = await startIpmiSim(dir.path, 0).catch((err) => (dir.remove(), Promise.reject(err)));
    try {
      const machines = [
        { serial: "ipmi-1", rack: 0, indexInRack: 5, ipv4: ["10.0.0.5"], bmcType: "IPMI-2.0", bmcIPv4: "127.0.0.1" },
        { serial: "ipmi-2", rack: 0, indexInRack: 6, ipv4: ["10.0.0.6"], bmcType: "IPMI-2.0", bmcIPv4: "127.0.0.1 -p 1" },
      ];
      await withKintsugi(dir.path, machines, sim.commandEnv, "ipmi", async (w) => {
        const done = await w.repair("10.0.0.5");
        assert.equal(done.status, "SUCCEEDED", JSON.stringify(done.history, null, 2));
        assert.ok(
          reasonsOf(done).some((r) => /step 1: repair command succeeded/.test(r)),
          reasonsOf(done).join("\n"),
        );
        assert.match(reasonsOf(done).at(-1) ?? "", /the health check reports the machine healthy/);
        const sets = sim.chassisCalls().filter((call) => call.startsWith("set "));
        assert.deepEqual(sets, ["set power 0", "set power 1"], "the simulated chassis was power-cycled once: off, then on");
        assert.equal(sim.power(), 1);

        const refused = await w.repair("10.0.0.6");
        assert.equal(refused.status, "FAILED", JSON.stringify(refused.history, null, 2));
        assert.match(JSON.stringify(refused.history), /KINTSUGI_BMC_ADDRESS is not set/, "the command stopped for want of an address");
        assert.deepEqual(
          sim.chassisCalls().filter((call) => call.startsWith("set ")),
          sets,
          "and the chassis was not touched again",
        );
      });
    } finally {
      sim.stop();
      dir.remove();
    }
  });

  it(
    "Redfish over https against a Redfish BMC: the hung machine is reset with PowerCycle and succeeds once On and OK",
    { skip: findProgram("curl") === null ? "needs curl" : false },
    async () => {
      const dir = tempDir("kintsugi-redfish-repair-");
      const bmc = await startRedfishBmc(dir.path);
      try {
        const machines = [{ serial: "idrac-1", rack: 1, indexInRack: 3, ipv4: ["10.1.0.3"], bmcType: "iDRAC-9", bmcIPv4: "127.0.0.1" }];
        await withKintsugi(dir.path, machines, bmc.commandEnv, "redfish", async (w) => {
          const done = await w.repair("10.1.0.3");
          assert.equal(done.status, "SUCCEEDED", JSON.stringify(done.history, null, 2));
          assert.ok(
            reasonsOf(done).some((r) => /step 1: repair command succeeded/.test(r)),
            reasonsOf(done).join("\n"),
          );
          assert.match(reasonsOf(done).at(-1) ?? "", /the health check reports the machine healthy/);
          assert.deepEqual(bmc.resets, ["PowerCycle"], "one ComputerSystem.Reset");
          assert.deepEqual([bmc.powerState, bmc.health], ["On", "OK"]);
          assert.equal(bmc.unauthorized, 0, "every request carried the credentials from the curl config file");
        });
      } finally {
        await bmc.close();
        dir.remove();
      }
    },
  );
});
