import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CONTROL_PLANE_LABEL } from "../../src/domain/queue/control-planes.js";
import { REBOOT_ANNOTATION } from "../../src/domain/shared/node-reboot.js";
import type { GeneratedCluster } from "../../src/domain/cluster/types.js";
import type { FakeNodeSpec } from "../support/fake-kube-api.js";
import { operationOf, startRepairWorld, stepOf, type RepairWorld, type WorldEntry } from "../support/repair-world.js";
import { withSideStore } from "../support/side-store.js";

const CP_LABELS = { [CONTROL_PLANE_LABEL]: "" };
const address = (i: number) => `10.0.1.${i}`;
const cpNode = (i: number, over: Partial<FakeNodeSpec> = {}): FakeNodeSpec => ({ name: `cp${i}`, internalIP: address(i), labels: CP_LABELS, ...over });
const finished = (e: WorldEntry) => e.status === "SUCCEEDED" || e.status === "FAILED";

/** A world whose one step drains the node and then runs `action` (max_concurrent_repairs 3). */
async function withWorld(action: string, scenario: (w: RepairWorld) => Promise<void>): Promise<void> {
  const world = await startRepairWorld((m) => ({
    maxConcurrentRepairs: 3,
    repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(m, [stepOf(m, action, { needDrain: true })])] }],
  }));
  try {
    await scenario(world);
  } finally {
    await world.dispose();
  }
}

/** Records the generated cluster configuration through a connection of its own, as the cluster generator would. */
function recordGeneratedControlPlanes(w: RepairWorld, controlPlanes: string[]): Promise<unknown> {
  const node = (a: string) => ({ address: a, user: "cybozu", control_plane: true, labels: {}, annotations: {}, taints: [] });
  const cluster: GeneratedCluster = { name: "tokyo", service_subnet: "10.68.0.0/16", control_plane_tolerations: [], extra: {}, nodes: controlPlanes.map(node) };
  return withSideStore(w.k, (side) => side.generations.recordGenerated(Date.now(), "operator", cluster, []));
}

const nodePatches = (w: RepairWorld) =>
  w.kube.requests.filter((r) => r.method === "PATCH" && r.path.startsWith("/api/v1/nodes/")).map((r) => r.path.slice("/api/v1/nodes/".length));

describe("control planes end to end (test Kubernetes API)", () => {
  it("three control planes with max_concurrent_repairs 3 are drained and repaired one at a time; the others say why they wait", () =>
    withWorld("held-fix", async (w) => {
      for (const i of [1, 2, 3]) w.kube.addNode(cpNode(i));
      const indexes = [await w.add(address(1)), await w.add(address(2)), await w.add(address(3))];
      for (const [n, index] of indexes.entries()) {
        await w.waitFor(index, (e) => e.stepStatus === "WATCHING");
        for (const later of indexes.slice(n + 1)) {
          const waiting = await w.waitFor(later, (e) => e.waitReason !== null && e.waitReason.includes(`entry ${index}`));
          assert.equal(waiting.status, "QUEUED");
          assert.equal(waiting.waitReason, `one control plane at a time: entry ${index} is repairing control plane ${address(n + 1)}`);
        }
        assert.deepEqual(
          [1, 2, 3].filter((i) => w.kube.node(`cp${i}`)?.["spec"]?.unschedulable === true),
          [n + 1],
          "only the control plane under repair is cordoned",
        );
        assert.equal((await w.entry(index)).waitReason, null, "an entry in progress is not held");
        w.machines.release(address(n + 1));
        assert.equal((await w.waitFor(index, finished)).status, "SUCCEEDED");
      }
      await w.waitFor(indexes[2]!, () => w.kube.node("cp3")?.["spec"]?.unschedulable !== true);
      // Cordoned in turn, each uncordoned once: a repaired node's uncordon runs after its success is committed, so on a
      // loaded machine the next control plane's drain may cordon it first (the repaired one is Ready by then).
      const patches = nodePatches(w);
      assert.deepEqual([...new Set(patches)], ["cp1", "cp2", "cp3"], "the control planes cordoned in turn");
      for (const node of ["cp1", "cp2", "cp3"]) assert.equal(patches.filter((p) => p === node).length, 2, `${node} cordoned and uncordoned once`);
    }));

  it("a control-plane repair waits while another control plane is not Ready, then while it is being rebooted", () =>
    withWorld("fix", async (w) => {
      // Three control planes: with one of two not Ready, etcd would have no quorum and nothing would be repaired.
      for (const i of [1, 2, 3]) w.kube.addNode(cpNode(i));
      w.kube.setNodeCondition("cp2", "Ready", "False");
      const index = await w.add(address(1));
      const notReady = await w.waitFor(index, (e) => e.waitReason === "control plane cp2 is not Ready");
      assert.equal(notReady.status, "QUEUED");

      // CKE's reboot queue takes cp2: annotated and cordoned, not by kintsugi.
      w.kube.addNode(cpNode(2, { annotations: { [REBOOT_ANNOTATION]: "true" }, unschedulable: true }));
      assert.equal((await w.waitFor(index, (e) => e.waitReason === "control plane cp2 is being rebooted")).status, "QUEUED");
      assert.equal(w.machines.runs("fix", address(1)), 0);
      assert.notEqual(w.kube.node("cp1")?.["spec"]?.unschedulable, true, "a held entry does not cordon its node");

      w.kube.addNode(cpNode(2));
      const done = await w.waitFor(index, finished);
      assert.equal(done.status, "SUCCEEDED");
      assert.equal(done.waitReason, null);
    }));

  it("the generated cluster configuration makes control planes of unlabelled nodes, and one listed without a Node is not Ready", () =>
    withWorld("fix", async (w) => {
      for (const i of [1, 2, 3]) w.kube.addNode({ name: `n${i}`, internalIP: address(i) });
      await recordGeneratedControlPlanes(w, [address(1), address(2), address(9)]);
      const first = await w.add(address(1));
      const worker = await w.add(address(3));
      assert.equal((await w.waitFor(first, (e) => e.waitReason !== null)).waitReason, `control plane ${address(9)} is not Ready`);
      assert.equal((await w.waitFor(worker, finished)).status, "SUCCEEDED", "a worker is not held");

      await recordGeneratedControlPlanes(w, [address(1), address(2)]);
      assert.equal((await w.waitFor(first, finished)).status, "SUCCEEDED");
    }));
});
