import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startFakeKubeApi } from "../support/fake-kube-api.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { graphqlData as gql, serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

// The health check runs before every other rule, through the real `kintsugi serve` (bin/kintsugi.js, dist/), the real Kubernetes client
// against the test API server and the machines' shell script: a machine that recovers after step 1's watch ran out,
// while step 2's drain waits out its back-off (at least 300 s), succeeds, and step 2's command never runs.

const ADDRESS = "10.0.4.1";
const NODE = "node41";

interface Entry {
  status: string;
  step: number;
  stepStatus: string;
  drainBackoffCount: number;
  history: Array<{ reason: string }>;
}

const quoted = (argv: string[]) => `[${argv.map((a) => JSON.stringify(a)).join(", ")}]`;

/** Step 1: a command that repairs nothing, watched 1 s. Step 2: drain, then `fix`. */
function configYaml(m: SimulatedMachines, kubeconfig: string, proof: string): string {
  return `listen: "127.0.0.1:0"
database: ./kintsugi.db
runner:
  interval_seconds: 0.1
kubernetes:
  kubeconfig: ${JSON.stringify(kubeconfig)}
repair:
  repair_procedures:
    - machine_types: [m]
      repair_operations:
        - operation: op
          repair_steps:
            - repair_command: ${quoted(m.command("noop"))}
              watch_seconds: 1
            - repair_command: ${quoted(m.command("fix"))}
              need_drain: true
          health_check_command: ${quoted(m.command("health"))}
${proof}`;
}

async function lateRecovery(proof: string, check: (e: Entry) => void): Promise<void> {
  const dir = tempDir();
  const machines = new SimulatedMachines(dir.path);
  const kube = await startFakeKubeApi();
  let server: ServeProcess | undefined;
  try {
    kube.addNode({ name: NODE, internalIP: ADDRESS });
    kube.addPod({ namespace: "db", name: "mysql-0", nodeName: NODE, controllerKind: "StatefulSet" });
    kube.refuseEviction("db", "mysql-0");
    writeFileSync(join(dir.path, "kintsugi.yaml"), configYaml(machines, kube.kubeconfigPath, proof));
    server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
    const url = await server.url;
    const { addRepairEntry } = await gql<{ addRepairEntry: { index: string } }>(
      url,
      `mutation($a: IPAddress!) { addRepairEntry(operation: "op", machineType: "m", address: $a) { index } }`,
      { a: ADDRESS },
    );
    const entry = async () =>
      (
        await gql<{ repairEntry: Entry }>(url, `query($i: ID!) { repairEntry(index: $i) { status step stepStatus drainBackoffCount history { reason } } }`, {
          i: addRepairEntry.index,
        })
      ).repairEntry;

    const backedOff = await until("step 2's drain backs off", entry, (e) => e.step === 1 && e.drainBackoffCount === 1, 30_000);
    assert.equal(backedOff.status, "PROCESSING");
    kube.allowEviction("db", "mysql-0");
    machines.setHealthy(ADDRESS);
    const done = await until("the entry finishes", entry, (e) => e.status === "SUCCEEDED" || e.status === "FAILED", 30_000);
    assert.equal(done.status, "SUCCEEDED", JSON.stringify(done.history, null, 2));
    assert.equal(done.step, 1);
    assert.equal(machines.runs("fix", ADDRESS), 0, "step 2's command never ran");
    check(done);
    server.child.kill("SIGTERM");
    assert.equal(await server.exited, 0);
  } finally {
    if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    await kube.close();
    dir.remove();
  }
}

describe("CKE's health rule at every step (the real server process)", () => {
  it("a machine that recovers during step 2's drain back-off succeeds, and step 2's command never runs", () =>
    lateRecovery("", (e) => assert.match(e.history.at(-1)?.reason ?? "", /the health check reports the machine healthy/)));

  it("the same with success_requires: step 1's evidence counts, the dwell proves the late recovery", () =>
    lateRecovery("          success_requires: [node_ready]\n          success_dwell_seconds: 1\n", (e) => {
      const reasons = e.history.map((h) => h.reason);
      assert.ok(
        reasons.some((r) => /^step 2: proof of repair: dwell started/.test(r)),
        reasons.join("\n"),
      );
      assert.ok(
        reasons.some((r) => /^step 2: proof of repair: repair proven$/.test(r)),
        reasons.join("\n"),
      );
    }));
});
