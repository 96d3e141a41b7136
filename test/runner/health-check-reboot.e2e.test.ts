import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startFakeKubeApi } from "../support/fake-kube-api.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { graphqlData as gql, serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

interface Status {
  targets: Array<{ node: string; state: string }>;
}

const quoted = (argv: readonly string[]) => `[${argv.map((a) => JSON.stringify(a)).join(", ")}]`;

describe("health checks wait out CKE's reboots (the real server process, test Kubernetes API)", () => {
  it("a Node CKE is rebooting is pending, not remediated, until wait-seconds-to-repair-rebooting has passed", async () => {
    const dir = tempDir();
    const machines = new SimulatedMachines(dir.path);
    const kube = await startFakeKubeApi();
    let server: ServeProcess | undefined;
    try {
      const labels = { role: "worker", "machine-type": "m" };
      kube.addNode({ name: "worker1", internalIP: "10.1.0.1", labels, annotations: { "cke.cybozu.com/reboot": "true" } });
      kube.addNode({ name: "worker2", internalIP: "10.1.0.2", labels });
      // Both NotReady for 60 s, far past the check's 1 s timeout; only worker1 is being rebooted by CKE.
      const since = new Date(Date.now() - 60_000);
      kube.setNodeCondition("worker1", "Ready", "Unknown", since);
      kube.setNodeCondition("worker2", "Ready", "Unknown", since);
      writeFileSync(
        join(dir.path, "kintsugi.yaml"),
        `listen: "127.0.0.1:0"
database: ./kintsugi.db
auth: { anonymous: admin }
kubernetes:
  kubeconfig: ${JSON.stringify(kube.kubeconfigPath)}
runner:
  interval_seconds: 0.2
constraints:
  maximum-repair-queue-entries: 10
  wait-seconds-to-repair-rebooting: 3600
repair:
  repair_procedures:
    - machine_types: [m]
      repair_operations:
        - operation: node-not-ready
          repair_steps:
            - repair_command: ${quoted(machines.command("fix"))}
          health_check_command: ${quoted(machines.command("health"))}
health_checks:
  - name: workers
    selector: { matchLabels: { role: worker } }
    unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: 1 } ]
    operation: node-not-ready
    machine_type_label: machine-type
`,
      );
      server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
      const url = await server.url;
      const entries = async () =>
        (await gql<{ searchRepairEntries: Array<{ address: string }> }>(url, "{ searchRepairEntries { address } }")).searchRepairEntries;
      const status = async () => (await gql<{ healthChecks: Status[] }>(url, "{ healthChecks { targets { node state } } }")).healthChecks[0];
      // worker2, not rebooting, is remediated at once: the check works; worker1 waits in the same evaluations.
      await until("worker2 is enqueued", entries, (es) => es.some((e) => e.address === "10.1.0.2"), 30_000);
      const waiting = await status();
      assert.deepEqual(waiting?.targets, [
        { node: "worker1", state: "PENDING" },
        { node: "worker2", state: "UNHEALTHY" },
      ]);
      assert.deepEqual(
        (await entries()).map((e) => e.address),
        ["10.1.0.2"],
        "the rebooting node is not remediated",
      );
      assert.equal(machines.runs("fix", "10.1.0.1"), 0);

      // 60 s of NotReady is past a 30 s wait: the same node is now judged as any other, and remediated.
      await gql(url, `mutation { setConstraint(name: "wait-seconds-to-repair-rebooting", value: 30) { waitSecondsToRepairRebooting } }`);
      await until("worker1 is enqueued once the wait has passed", entries, (es) => es.some((e) => e.address === "10.1.0.1"), 30_000);
      assert.equal((await status())?.targets.find((t) => t.node === "worker1")?.state, "UNHEALTHY");
      server.child.kill("SIGTERM");
      assert.equal(await server.exited, 0);
    } finally {
      if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      await kube.close();
      dir.remove();
    }
  });
});
