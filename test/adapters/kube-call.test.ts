import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { KubeNodeOperator } from "../../src/adapters/kube-node-operator.js";
import type { NodePod } from "../../src/adapters/ports.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { until } from "../support/until.js";

const pod = (namespace: string, name: string): NodePod => ({ namespace, name, controllerKind: null, phase: "Running", labels: {} });

describe("Kubernetes calls against a server that never answers (timeout, abort)", () => {
  let fake: FakeKubeApi;
  beforeEach(async () => {
    fake = await startFakeKubeApi();
    fake.addNode({ name: "n1", internalIP: "10.0.0.1" });
    fake.addNode({ name: "n2", internalIP: "10.0.0.2" });
  });
  afterEach(() => fake.close());

  it("gives up on every call the server holds unanswered after the timeout, naming the call and the seconds", async () => {
    const quick = KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath, 0.3);
    fake.blackhole(true);
    await assert.rejects(quick.listNodes(), /^Error: list nodes: nodes: timed out after 0\.3 s$/);
    await assert.rejects(quick.listPods("n1"), /^Error: list pods: pods on node\/n1: timed out after 0\.3 s$/);
    await assert.rejects(quick.cordon("n1", "entry-1"), /^Error: cordon \(get\): node\/n1: timed out after 0\.3 s$/);
    await assert.rejects(quick.deletePod(pod("app", "web-1")), /^Error: delete pod: pod\/app\/web-1: timed out after 0\.3 s$/);
    await assert.rejects(
      quick.recordEvent("n1", { type: "Normal", reason: "RepairStarted", message: "m" }),
      /^Error: record event: event RepairStarted on node\/n1: timed out after 0\.3 s$/,
    );
    assert.deepEqual(await quick.evict(pod("app", "web-1"), { dryRun: true }), {
      kind: "error",
      message: "evict (dry run): pod/app/web-1: timed out after 0.3 s",
    });
    // The held connections are closed by the client, not left open.
    await until(
      "the timed-out connections are closed",
      () => fake.openConnections(),
      (n) => n === 0,
    );
    fake.blackhole(false);
    assert.equal((await quick.listNodes()).length, 2, "answers again once the server does");
  });

  it("ends a call at once when its signal aborts, and closes its connection", async () => {
    const patient = KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath, 600);
    fake.blackhole(true);
    const controller = new AbortController();
    const pending = patient.listPods("n1", { signal: controller.signal });
    await until(
      "the request is held",
      () => fake.requests.filter((r) => r.path === "/api/v1/pods").length,
      (n) => n === 1,
    );
    controller.abort();
    await assert.rejects(pending, /^Error: list pods: pods on node\/n1: aborted$/);
    await until(
      "the aborted connection is closed",
      () => fake.openConnections(),
      (n) => n === 0,
    );
    assert.deepEqual(await patient.evict(pod("app", "web-1"), { dryRun: false, signal: controller.signal }), {
      kind: "error",
      message: "evict: pod/app/web-1: aborted",
    });
    assert.equal(fake.requests.filter((r) => r.path.endsWith("/eviction")).length, 0, "an aborted signal sends nothing");
  });
});
