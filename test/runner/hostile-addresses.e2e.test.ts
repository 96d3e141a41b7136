import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { startFakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi } from "../support/kintsugi-server.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { operationOf, stepOf } from "../support/repair-world.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

const OUTCOME = `enqueued { address serial } skipped { serial address state reason }`;
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe("addresses from sabakan and Kubernetes are read as the API reads them (test sabakan, test Kubernetes API)", () => {
  it("skips machines whose first IPv4 is not an IP address, with the reason; no command, metric or outcome gets them raw; ::ffff:10.1.0.3 and 10.1.0.3 are one machine", async () => {
    const dir = tempDir();
    const machines = new SimulatedMachines(dir.path);
    const sabakan = await startFakeSabakan();
    const kube = await startFakeKubeApi();
    // The Node's InternalIP is the mapped spelling and the machine's the plain one: the entry must still find it.
    kube.addNode({ name: "n3", internalIP: "::ffff:10.1.0.3" });
    kube.addNode({ name: "evil", internalIP: "-rf" });
    const hostile = { x1: "-rf", x2: "--output=/etc/x", x3: "10.1.0.9\u001b[2J\r\n", x4: "" };
    for (const [serial, ip] of Object.entries(hostile)) sabakan.addMachine({ serial, rack: 1, ipv4: [ip], bmcType: "m", state: "UNHEALTHY" });
    sabakan.addMachine({ serial: "a3", rack: 1, ipv4: ["::ffff:10.1.0.3"], bmcType: "m", state: "UNHEALTHY" });
    const k = await startTestKintsugi(
      {
        sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 20 },
        kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 10 },
        repair: {
          ...EMPTY_REPAIR_CONFIG,
          repairProcedures: [{ machineTypes: ["m"], repairOperations: [{ ...operationOf(machines, [stepOf(machines, "fix")]), operation: "unhealthy" }] }],
        },
        runner: { intervalSeconds: 0.2, healthCheckConcurrency: 4 },
        constraints: { maximumRepairQueueEntries: 10 },
      },
      { startRunner: true, startSchedule: false },
    );
    try {
      const outcome = (await k.gql(`mutation { runAutoRepair { ${OUTCOME} } }`)).data?.["runAutoRepair"];
      assert.deepEqual(outcome.enqueued, [{ address: "10.1.0.3", serial: "a3" }]);
      assert.deepEqual(outcome.skipped, [
        { serial: "x1", address: null, state: "UNHEALTHY", reason: 'invalid IP address: "-rf" in spec.ipv4[0]' },
        { serial: "x2", address: null, state: "UNHEALTHY", reason: 'invalid IP address: "--output=/etc/x" in spec.ipv4[0]' },
        { serial: "x3", address: null, state: "UNHEALTHY", reason: 'invalid IP address: "10.1.0.9\\x1b[2J\\x0d\\x0a" in spec.ipv4[0]' },
        { serial: "x4", address: null, state: "UNHEALTHY", reason: 'invalid IP address: "" in spec.ipv4[0]' },
      ]);
      const entries = async () =>
        (await k.gql(`{ searchRepairEntries { address nodename status } }`)).data?.["searchRepairEntries"] as Array<Record<string, string>>;
      const done = await until("the repair succeeded", entries, (e) => e[0]?.["status"] === "SUCCEEDED");
      assert.deepEqual(done, [{ address: "10.1.0.3", nodename: "n3", status: "SUCCEEDED" }]);
      const args = machines.log().map((line) => line.split(" ").at(-1));
      assert.ok(args.length > 0 && args.every((a) => a === "10.1.0.3"), JSON.stringify(machines.log()));

      // An operator's entry for the mapped spelling is the same machine as sabakan's plain one.
      const added = (await k.gql(`mutation { addRepairEntry(operation: "unhealthy", machineType: "m", address: "::ffff:10.1.0.4") { address } }`)).data?.[
        "addRepairEntry"
      ];
      assert.deepEqual(added, { address: "10.1.0.4" });
      sabakan.addMachine({ serial: "a4", rack: 1, ipv4: ["10.1.0.4"], bmcType: "m", state: "UNHEALTHY" });
      const again = (await k.gql(`mutation { runAutoRepair { ${OUTCOME} } }`)).data?.["runAutoRepair"];
      assert.deepEqual(again.enqueued, []);
      assert.deepEqual(
        again.skipped.filter((s: { serial: string }) => s.serial.startsWith("a")),
        [
          { serial: "a3", address: "10.1.0.3", state: "UNHEALTHY", reason: "recently repaired" },
          { serial: "a4", address: "10.1.0.4", state: "UNHEALTHY", reason: "recently repaired" },
        ],
      );

      const metrics = await (await fetch(`${k.url}/metrics`)).text();
      assert.doesNotMatch(metrics, CONTROL);
      assert.doesNotMatch(metrics, /-rf|--output|10\.1\.0\.9/);
      assert.match(metrics, /address="10\.1\.0\.3"/);
    } finally {
      await k.dispose();
      await kube.close();
      await sabakan.close();
      dir.remove();
    }
  });
});
