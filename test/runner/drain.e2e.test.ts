import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairConfig } from "../../src/domain/queue/repair-config.js";
import type { SimulatedMachines } from "../support/machine-script.js";
import { operationOf, startRepairWorld, stepOf, type RepairWorld, type WorldEntry } from "../support/repair-world.js";

const ANNOTATION = "kintsugi.cybozu.io/cordoned-by";
const backedOff = (e: WorldEntry) => e.drainBackoffCount >= 1 && e.stepStatus === "WAITING";
const finished = (e: WorldEntry) => e.status === "SUCCEEDED" || e.status === "FAILED";

async function withDrainWorld(extra: Partial<RepairConfig>, scenario: (w: RepairWorld) => Promise<void>): Promise<void> {
  const world = await startRepairWorld((m: SimulatedMachines) => ({
    ...extra,
    repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(m, [stepOf(m, "fix", { needDrain: true })])] }],
  }));
  world.kube.addNode({ name: "node1", internalIP: "10.0.1.1" });
  try {
    await scenario(world);
  } finally {
    await world.dispose();
  }
}

const schedulable = (w: RepairWorld) =>
  w.kube.node("node1")?.["spec"]?.unschedulable !== true && w.kube.node("node1")?.["metadata"]?.annotations?.[ANNOTATION] === undefined;

describe("drains end to end (test Kubernetes API)", () => {
  it("backs off when a PodDisruptionBudget refuses a pod of a protected namespace, then retries after reset-backoff", () =>
    withDrainWorld({}, async (w) => {
      w.kube.addPod({ namespace: "db", name: "mysql-0", nodeName: "node1", controllerKind: "StatefulSet" });
      w.kube.refuseEviction("db", "mysql-0", "Cannot evict pod as it would violate the pod's disruption budget.");
      const index = await w.add("10.0.1.1");
      const waiting = await w.waitFor(index, backedOff);
      assert.equal(waiting.status, "PROCESSING");
      assert.ok(waiting.drainBackoffExpire !== null);
      assert.match(
        waiting.history.at(-1)?.reason ?? "",
        /drain failed: dry-run eviction of db\/mysql-0 was refused: Cannot evict pod .*disruption budget.*backing off \(count 1\)/,
      );
      assert.ok(schedulable(w), "a refused dry run changes nothing on the node");
      assert.equal(w.machines.runs("fix", "10.0.1.1"), 0);
      // Events are recorded beside the transitions, not inside them: wait for them.
      await w.waitFor(index, () => w.kube.events().length >= 2);
      assert.deepEqual(
        w.kube
          .events()
          .map((e) => e["reason"])
          .sort(),
        ["RepairDrainBackoff", "RepairDrainStarted"],
      );

      w.kube.allowEviction("db", "mysql-0");
      await w.mutate(`mutation { resetRepairBackoff { index } }`);
      const done = await w.waitFor(index, finished);
      assert.equal(done.status, "SUCCEEDED");
      assert.equal(done.drainBackoffCount, 0);
      assert.ok(done.history.some((h) => h.kind === "BACKOFF_RESET"));
      await w.waitFor(index, () => schedulable(w));
    }));

  it("deletes a refusing pod of an unprotected namespace and repairs", () =>
    withDrainWorld({ protectedNamespaces: { matchLabels: { team: "neco" } } }, async (w) => {
      w.kube.addNamespace("batch", {});
      w.kube.addPod({ namespace: "batch", name: "worker", nodeName: "node1", controllerKind: "ReplicaSet" });
      w.kube.refuseEviction("batch", "worker");
      const done = await w.waitFor(await w.add("10.0.1.1"), finished);
      assert.equal(done.status, "SUCCEEDED");
      assert.deepEqual(
        w.kube.evictions.map((e) => [e.name, e.dryRun, e.outcome]),
        [
          ["worker", true, "refused"],
          ["worker", false, "refused"],
        ],
        "a refused dry run outside protected namespaces does not stop the drain",
      );
      assert.ok(w.kube.requests.some((r) => r.method === "DELETE" && r.path === "/api/v1/namespaces/batch/pods/worker"));
      assert.deepEqual(w.kube.pods(), []);
    }));

  it("retries a refused eviction in a protected namespace evict_retries times, then backs off and uncordons", () =>
    withDrainWorld({ evictRetries: 1, evictInterval: 0 }, async (w) => {
      w.kube.addPod({ namespace: "db", name: "mysql-0", nodeName: "node1", controllerKind: "StatefulSet" });
      // The dry run passes; then the budget has changed and every real eviction is refused.
      w.kube.refuseEviction("db", "mysql-0", "would violate the disruption budget", { dryRunToo: false });
      const index = await w.add("10.0.1.1");
      const waiting = await w.waitFor(index, backedOff);
      assert.match(waiting.history.at(-1)?.reason ?? "", /drain failed: eviction of db\/mysql-0 was refused 2 time\(s\): would violate the disruption budget/);
      assert.deepEqual(
        w.kube.evictions.map((e) => [e.dryRun, e.outcome]),
        [
          [true, "evicted"],
          [false, "refused"],
          [false, "refused"],
        ],
        "evict_retries 1 = 2 attempts",
      );
      assert.ok(
        w.kube.requests.some((r) => r.method === "PATCH" && r.path === "/api/v1/nodes/node1"),
        "it was cordoned",
      );
      await w.waitFor(index, () => schedulable(w));
      assert.equal(w.kube.pods().length, 1, "a protected pod is never deleted");
    }));

  it("backs off on a running protected Job pod listed after other pods before cordoning, evicting or deleting anything", () =>
    withDrainWorld({ protectedNamespaces: { matchLabels: { team: "neco" } }, protectedJobPods: { matchLabels: { protect: "true" } } }, async (w) => {
      // Each pod listed first would be removed by a drain that discovered the Job pod only when it got to it.
      w.kube.addPod({ namespace: "app", name: "web", nodeName: "node1", controllerKind: "ReplicaSet" });
      w.kube.addPod({ namespace: "batch", name: "worker", nodeName: "node1", controllerKind: "ReplicaSet" });
      w.kube.refuseEviction("batch", "worker");
      w.kube.addPod({ namespace: "batch", name: "report-x1", nodeName: "node1", controllerKind: "Job" });
      w.kube.addPod({ namespace: "batch", name: "backup-x1", nodeName: "node1", controllerKind: "Job", labels: { protect: "true" } });
      const index = await w.add("10.0.1.1");
      const waiting = await w.waitFor(index, backedOff);
      assert.match(waiting.history.at(-1)?.reason ?? "", /drain failed: protected job-managed pod exists: batch\/backup-x1; backing off \(count 1\)/);
      assert.deepEqual(
        w.kube.requests.filter((r) => r.method === "PATCH" && r.path.startsWith("/api/v1/nodes")),
        [],
        "the node is not cordoned",
      );
      assert.deepEqual(
        w.kube.evictions.filter((e) => !e.dryRun),
        [],
        "nothing is evicted",
      );
      assert.deepEqual(
        w.kube.requests.filter((r) => r.method === "DELETE"),
        [],
        "nothing is deleted",
      );
      assert.deepEqual(
        w.kube
          .pods()
          .map((p) => `${p.namespace}/${p.name}`)
          .sort(),
        ["app/web", "batch/backup-x1", "batch/report-x1", "batch/worker"],
      );
      assert.ok(schedulable(w));
      assert.equal(w.machines.runs("fix", "10.0.1.1"), 0);
    }));

  it("backs off before cordoning when the dry-run eviction of a pod in an unprotected namespace fails", () =>
    withDrainWorld({ protectedNamespaces: { matchLabels: { team: "neco" } } }, async (w) => {
      w.kube.addPod({ namespace: "app", name: "web", nodeName: "node1", controllerKind: "ReplicaSet" });
      w.kube.addPod({ namespace: "app", name: "api", nodeName: "node1", controllerKind: "ReplicaSet" });
      w.kube.failNextRequests(/\/pods\/api\/eviction$/, 500, 1, { message: "etcd is unhappy" });
      const index = await w.add("10.0.1.1");
      const waiting = await w.waitFor(index, backedOff);
      assert.match(
        waiting.history.at(-1)?.reason ?? "",
        /drain failed: dry-run eviction of app\/api failed: evict \(dry run\): pod\/app\/api: HTTP 500.*etcd is unhappy/,
      );
      assert.deepEqual(
        w.kube.requests.filter((r) => r.method === "PATCH" && r.path.startsWith("/api/v1/nodes")),
        [],
        "the node is not cordoned",
      );
      assert.deepEqual(
        w.kube.evictions.map((e) => [e.name, e.dryRun]),
        [["web", true]],
        "app/web was only dry-run evicted",
      );
      assert.equal(w.kube.pods().length, 2);
    }));

  it("deletes a running Job pod that protected_job_pods does not protect", () =>
    withDrainWorld({ protectedJobPods: { matchLabels: { "backup.example.com/protect": "true" } } }, async (w) => {
      w.kube.addPod({ namespace: "batch", name: "report-x1", nodeName: "node1", controllerKind: "Job" });
      w.kube.addPod({ namespace: "batch", name: "done-x1", nodeName: "node1", controllerKind: "Job", phase: "Succeeded" });
      const done = await w.waitFor(await w.add("10.0.1.1"), finished);
      assert.equal(done.status, "SUCCEEDED");
      assert.deepEqual(
        w.kube.pods().map((p) => p.name),
        ["done-x1"],
        "finished Job pods stay",
      );
      assert.equal(w.kube.evictions.length, 0, "Job pods are deleted, not evicted");
    }));

  it("waits for evicted pods to terminate before running the repair command", () =>
    withDrainWorld({}, async (w) => {
      w.kube.terminationMode = "manual";
      w.kube.addPod({ namespace: "app", name: "web", nodeName: "node1", controllerKind: "ReplicaSet" });
      const index = await w.add("10.0.1.1");
      await w.waitFor(index, (e) => e.stepStatus === "DRAINING" && w.kube.pods().some((p) => p.terminating));
      // Each pass after the eviction job lists the node's pods; the second such list shows a whole pass decided.
      const podLists = () => w.kube.requests.filter((r) => r.method === "GET" && r.path === "/api/v1/pods").length;
      const seen = podLists();
      await w.waitFor(index, () => podLists() >= seen + 2);
      assert.equal((await w.entry(index)).stepStatus, "DRAINING", "still draining while the pod terminates");
      assert.equal(w.machines.runs("fix", "10.0.1.1"), 0);
      w.kube.finishTermination("app", "web");
      assert.equal((await w.waitFor(index, finished)).status, "SUCCEEDED");
    }));

  it("abandons a drain with a back-off when the queue is disabled, and uncordons", () =>
    withDrainWorld({}, async (w) => {
      w.kube.terminationMode = "manual";
      w.kube.addPod({ namespace: "app", name: "web", nodeName: "node1", controllerKind: "ReplicaSet" });
      const index = await w.add("10.0.1.1");
      await w.waitFor(index, (e) => e.stepStatus === "DRAINING" && w.kube.node("node1")?.["spec"]?.unschedulable === true);
      await w.mutate(`mutation { setRepairQueueEnabled(enabled: false) }`);
      const waiting = await w.waitFor(index, backedOff);
      assert.match(waiting.history.at(-1)?.reason ?? "", /drain abandoned: the repair queue is disabled/);
      await w.waitFor(index, () => schedulable(w));
      assert.equal(w.machines.runs("fix", "10.0.1.1"), 0);
    }));

  it("does not drain a machine that is not a node", () =>
    withDrainWorld({}, async (w) => {
      const done = await w.waitFor(await w.add("10.0.9.9"), finished);
      assert.equal(done.status, "SUCCEEDED");
      assert.equal(done.nodename, "");
      assert.equal(w.kube.requests.filter((r) => r.method === "PATCH").length, 0);
    }));
});
