import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { startTestKintsugi } from "../support/kintsugi-server.js";
import { operationOf, startRepairWorld, stepOf } from "../support/repair-world.js";
import { until } from "../support/until.js";

const TIMEOUT_SECONDS = 1;

describe("a Kubernetes API that accepts requests and never answers (test Kubernetes API)", () => {
  it("keeps the API answering, holds repairs, stops promptly, and resumes once the API answers again", async () => {
    const logs: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => void logs.push(line) });
    const w = await startRepairWorld(
      (m) => ({ repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(m, [stepOf(m, "fix", { needDrain: true })])] }] }),
      { kubeTimeoutSeconds: TIMEOUT_SECONDS, logger },
    );
    try {
      w.kube.addNode({ name: "node1", internalIP: "10.0.1.1" });
      w.kube.addPod({ namespace: "app", name: "web", nodeName: "node1", controllerKind: "ReplicaSet" });
      w.kube.blackhole(true);
      const index = await w.add("10.0.1.1");
      const held = () => w.kube.requests.filter((r) => r.method === "GET" && r.path === "/api/v1/nodes").length;
      const before = held();
      await until("two more passes have met the silent API", held, (n) => n >= before + 2);
      await until(
        "a pass logged why it failed",
        () => logs.filter((l) => /repair pass failed/.test(l) && /list nodes: nodes: timed out after 1 s/.test(l)).length,
        (n) => n >= 1,
      );

      const entry = await w.entry(index);
      assert.deepEqual([entry.status, entry.stepStatus], ["QUEUED", "WAITING"], "the repair does not progress without the API");
      const health = await fetch(`${w.k.url}/health`);
      assert.equal(health.status, 200);
      assert.equal(w.machines.runs("fix", "10.0.1.1"), 0);
      assert.equal(w.kube.node("node1")?.["spec"]?.unschedulable, undefined);

      // Another kintsugi, with its runner and a health check (a node watch) meeting the same silent API, stops
      // promptly. Its timeout is long, so only stopping's abort of the calls in flight can end them in time.
      const other = await startTestKintsugi(
        {
          kubernetes: { kubeconfig: w.kube.kubeconfigPath, timeoutSeconds: 30 },
          repair: EMPTY_REPAIR_CONFIG,
          runner: { intervalSeconds: 0.1, healthCheckConcurrency: 1 },
          healthChecks: [
            {
              name: "all",
              selector: { matchLabels: { "kubernetes.io/hostname": "node1" } },
              unhealthyConditions: [{ type: "Ready", status: "Unknown", timeoutSeconds: 60 }],
              maxUnhealthy: { kind: "percent", value: 100 },
              unhealthyRange: null,
              operation: "op",
              machineType: { from: "label", label: "m" },
              paused: false,
            },
          ],
        },
        { startRunner: true },
      );
      const watches = () => w.kube.requests.filter((r) => r.query["watch"] === "true").length;
      const watchesBefore = watches();
      const listsBefore = held();
      await until(
        "the other kintsugi's watch and list are held",
        () => [watches(), held()],
        ([ws, ls]) => ws! > watchesBefore && ls! > listsBefore,
      );
      const stopping = Date.now();
      await other.dispose();
      const seconds = (Date.now() - stopping) / 1000;
      assert.ok(seconds < TIMEOUT_SECONDS + 8, `close() took ${seconds} s with the API silent`);

      w.kube.blackhole(false);
      const done = await w.waitFor(index, (e) => e.status === "SUCCEEDED" || e.status === "FAILED");
      assert.equal(done.status, "SUCCEEDED");
      assert.equal(w.machines.runs("fix", "10.0.1.1"), 1);
      assert.deepEqual(w.kube.pods(), [], "drained");
    } finally {
      await w.dispose();
    }
  });
});
