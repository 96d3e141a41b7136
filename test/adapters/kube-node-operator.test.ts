import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { KubeNodeOperator } from "../../src/adapters/kube-node-operator.js";
import { CORDONED_BY_ANNOTATION, type NodePod } from "../../src/adapters/ports.js";
import { labelSelectorToString } from "../../src/domain/shared/label-selector.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { findKubectl, runKubectl } from "../support/kubectl.js";

const pod = (namespace: string, name: string): NodePod => ({ namespace, name, controllerKind: null, phase: "Running", labels: {} });

describe("KubeNodeOperator against the fake API server", () => {
  let fake: FakeKubeApi;
  let kube: KubeNodeOperator;
  beforeEach(async () => {
    fake = await startFakeKubeApi();
    fake.addNode({ name: "n1", internalIP: "10.0.0.1", bootId: "boot-n1" });
    fake.addNode({
      name: "n2",
      internalIP: "10.0.0.2",
      bootId: "boot-n2",
      unschedulable: true,
      annotations: { note: "by hand" },
      taints: [
        { key: "example.com/gpu", effect: "NoSchedule" },
        { key: "k", value: "v", effect: "NoExecute" },
      ],
    });
    kube = KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath);
  });
  afterEach(() => fake.close());

  it("lists nodes with their internal IPs, schedulability, annotations, labels, taints, conditions and boot IDs", async () => {
    const since = new Date(Date.UTC(2026, 10, 22, 6, 0, 0));
    fake.setNodeCondition("n2", "Ready", "Unknown", since);
    fake.setNodeBootId("n2", "boot-n2-rebooted");
    const nodes = await kube.listNodes();
    assert.deepEqual(
      nodes.map((n) => n.bootId),
      ["boot-n1", "boot-n2-rebooted"],
      "status.nodeInfo.bootID, read in the same list call",
    );
    assert.deepEqual(
      nodes.map(({ conditions: _, bootId: _boot, ...rest }) => rest),
      [
        { name: "n1", internalIPs: ["10.0.0.1"], unschedulable: false, annotations: {}, labels: { "kubernetes.io/hostname": "n1" }, taints: [] },
        {
          name: "n2",
          internalIPs: ["10.0.0.2"],
          unschedulable: true,
          annotations: { note: "by hand" },
          labels: { "kubernetes.io/hostname": "n2" },
          taints: [
            { key: "example.com/gpu", effect: "NoSchedule" },
            { key: "k", value: "v", effect: "NoExecute" },
          ],
        },
      ],
    );
    assert.deepEqual(nodes[1]?.conditions, [{ type: "Ready", status: "Unknown", lastTransitionTime: since.getTime() }]);
    assert.deepEqual(
      nodes[0]?.conditions.map((c) => [c.type, c.status]),
      [["Ready", "True"]],
    );
    fake.setNodeCondition("n2", "Ready", "True", since);
  });

  it("cordons with a merge patch that marks the cordon as kintsugi's", async () => {
    assert.equal(await kube.cordon("n1", "kintsugi@host-a"), true);
    const node = fake.node("n1");
    assert.equal(node?.spec.unschedulable, true);
    assert.equal(node?.metadata.annotations[CORDONED_BY_ANNOTATION], "kintsugi@host-a");
    assert.equal(fake.requests.find((r) => r.method === "PATCH")?.contentType, "application/merge-patch+json");
    assert.equal(await kube.cordon("n1", "kintsugi@host-a"), true, "cordoning its own cordon again is fine");
    assert.equal(await kube.cordon("n1", "kintsugi@host-b"), true, "a kintsugi cordon is taken over, as ports.ts says");
    assert.equal(fake.node("n1")?.metadata.annotations[CORDONED_BY_ANNOTATION], "kintsugi@host-b");
  });

  it("leaves a node cordoned by someone else alone", async () => {
    assert.equal(await kube.cordon("n2", "kintsugi"), false);
    assert.equal(fake.node("n2")?.metadata.annotations[CORDONED_BY_ANNOTATION], undefined);
    assert.equal(fake.requests.filter((r) => r.method === "PATCH").length, 0);
    assert.equal(await kube.uncordon("n2", "kintsugi"), false);
    assert.equal(fake.node("n2")?.spec.unschedulable, true);
  });

  it("uncordons only the cordons of the same owner", async () => {
    assert.equal(await kube.uncordon("n1", "entry-1"), false, "never cordoned");
    await kube.cordon("n1", "entry-1");
    assert.equal(await kube.uncordon("n1", "entry-2"), false, "another entry's cordon");
    assert.equal(fake.node("n1")?.spec.unschedulable, true);
    assert.equal(await kube.uncordon("n1", "entry-1"), true);
    const node = fake.node("n1");
    assert.equal(node?.spec.unschedulable, false);
    assert.equal(Object.hasOwn(node?.metadata.annotations, CORDONED_BY_ANNOTATION), false);
    assert.equal(await kube.uncordon("n1", "entry-1"), false, "already uncordoned");
  });

  it("uncordons a vanished node as a no-op", async () => {
    await kube.cordon("n1", "kintsugi");
    fake.removeNode("n1");
    assert.equal(await kube.uncordon("n1", "kintsugi"), false);
  });

  it("decides again when the node changed between its read and the patch (409)", async () => {
    fake.failNextRequests(/\/nodes\/n1$/, 409, 1, { method: "PATCH" });
    assert.equal(await kube.cordon("n1", "kintsugi"), true);
    assert.equal(fake.requests.filter((r) => r.method === "PATCH").length, 2);
    fake.failNextRequests(/\/nodes\/n1$/, 409, 3, { method: "PATCH", message: "the object has been modified" });
    await assert.rejects(kube.uncordon("n1", "kintsugi"), /^Error: uncordon \(patch\): node\/n1: HTTP 409 Conflict: the object has been modified$/);
  });

  it("names the operation, the object and the HTTP status in API errors", async () => {
    fake.failNextRequests(/^\/api\/v1\/nodes$/, 500, 1, { message: "etcd unavailable" });
    await assert.rejects(kube.listNodes(), /^Error: list nodes: nodes: HTTP 500 InternalError: etcd unavailable$/);
    fake.failNextRequests(/\/nodes\/n1$/, 503);
    await assert.rejects(kube.cordon("n1", "kintsugi"), /^Error: cordon \(get\): node\/n1: HTTP 503 ServiceUnavailable: injected failure/);
    await assert.rejects(kube.cordon("gone", "kintsugi"), /^Error: cordon \(get\): node\/gone: HTTP 404 NotFound: nodes "gone" not found$/);
    fake.failNextRequests(/\/events$/, 403, 1, { message: "events is forbidden" });
    await assert.rejects(
      kube.recordEvent("n1", { type: "Normal", reason: "RepairStarted", message: "x" }),
      /^Error: record event: event RepairStarted on node\/n1: HTTP 403 Forbidden: events is forbidden$/,
    );
  });

  it("lists the pods of a node with their controller kind", async () => {
    fake.addPod({ namespace: "app", name: "web-1", nodeName: "n1", controllerKind: "ReplicaSet", labels: { app: "web" } });
    fake.addPod({ namespace: "kube-system", name: "cni-x", nodeName: "n1", controllerKind: "DaemonSet" });
    fake.addPod({ namespace: "batch", name: "job-1", nodeName: "n1", controllerKind: "Job", phase: "Succeeded" });
    fake.addPod({ namespace: "app", name: "owned", nodeName: "n1", owners: [{ kind: "ConfigMap", controller: false }] });
    fake.addPod({ namespace: "app", name: "elsewhere", nodeName: "n2" });
    const pods = await kube.listPods("n1");
    assert.deepEqual(pods.map((p) => [p.namespace, p.name, p.controllerKind, p.phase]).sort(), [
      ["app", "owned", null, "Running"],
      ["app", "web-1", "ReplicaSet", "Running"],
      ["batch", "job-1", "Job", "Succeeded"],
      ["kube-system", "cni-x", "DaemonSet", "Running"],
    ]);
    assert.deepEqual(pods.find((p) => p.name === "web-1")?.labels, { app: "web" });
    assert.deepEqual(fake.requests.at(-1)?.query, { fieldSelector: "spec.nodeName=n1" });
  });

  it("lists namespaces by label selector", async () => {
    fake.addNamespace("prod-db", { team: "db", env: "prod" });
    fake.addNamespace("dev-db", { team: "db", env: "dev" });
    fake.addNamespace("web", { team: "web" });
    assert.deepEqual((await kube.listNamespaces(null)).sort(), ["default", "dev-db", "kube-system", "prod-db", "web"]);
    assert.deepEqual(await kube.listNamespaces(labelSelectorToString({ matchLabels: { team: "db", env: "prod" } })), ["prod-db"]);
    const notDevNoTeam = labelSelectorToString({
      matchExpressions: [
        { key: "env", operator: "NotIn", values: ["dev"] },
        { key: "team", operator: "DoesNotExist" },
      ],
    });
    assert.deepEqual((await kube.listNamespaces(notDevNoTeam)).sort(), ["default", "kube-system"]);
    assert.deepEqual(await kube.listNamespaces("team in (web,ops),env"), []);
    await assert.rejects(kube.listNamespaces("a>1"), /^Error: list namespaces: namespaces matching "a>1": HTTP 400 BadRequest: /);
  });

  it("evicts, reporting evicted, not-found, refused (429) and error outcomes", async () => {
    fake.addPod({ namespace: "app", name: "web-1", nodeName: "n1" });
    fake.addPod({ namespace: "app", name: "db-0", nodeName: "n1" });
    fake.refuseEviction("app", "db-0", "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(await kube.evict(pod("app", "web-1"), { dryRun: false }), { kind: "evicted" });
    assert.deepEqual(
      fake.pods().map((p) => p.name),
      ["db-0"],
    );
    assert.deepEqual(await kube.evict(pod("app", "web-1"), { dryRun: false }), { kind: "not-found" });
    const refused = await kube.evict(pod("app", "db-0"), { dryRun: false });
    assert.equal(refused.kind, "refused");
    assert.match(
      refused.kind === "refused" ? refused.message : "",
      /^Cannot evict pod as it would violate the pod's disruption budget\. \(The disruption budget db-0-pdb needs 1 healthy pods/,
    );
    fake.failNextRequests(/\/eviction$/, 500, 1, { message: "admission webhook timed out" });
    assert.deepEqual(await kube.evict(pod("app", "db-0"), { dryRun: false }), {
      kind: "error",
      message: "evict: pod/app/db-0: HTTP 500 InternalError: admission webhook timed out",
    });
    assert.deepEqual(
      fake.evictions.map((e) => e.outcome),
      ["evicted", "not-found", "refused"],
    );
  });

  it("evicts nothing on a dry run, but reports what a real eviction would", async () => {
    fake.addPod({ namespace: "app", name: "web-1", nodeName: "n1" });
    fake.addPod({ namespace: "app", name: "db-0", nodeName: "n1" });
    fake.refuseEviction("app", "db-0");
    assert.deepEqual(await kube.evict(pod("app", "web-1"), { dryRun: true }), { kind: "evicted" });
    assert.equal((await kube.evict(pod("app", "db-0"), { dryRun: true })).kind, "refused");
    assert.equal(fake.pods().length, 2);
    assert.deepEqual(fake.evictions, [
      { namespace: "app", name: "web-1", dryRun: true, outcome: "evicted" },
      { namespace: "app", name: "db-0", dryRun: true, outcome: "refused" },
    ]);
    assert.equal(fake.requests.filter((r) => r.query.dryRun === "All").length, 2);
  });

  it("sees an evicted pod terminating until it is gone", async () => {
    fake.terminationMode = "manual";
    fake.addPod({ namespace: "app", name: "web-1", nodeName: "n1" });
    assert.deepEqual(await kube.evict(pod("app", "web-1"), { dryRun: false }), { kind: "evicted" });
    assert.deepEqual(
      (await kube.listPods("n1")).map((p) => p.name),
      ["web-1"],
    );
    assert.equal(fake.pods()[0]?.terminating, true);
    fake.finishTermination("app", "web-1");
    assert.deepEqual(await kube.listPods("n1"), []);
  });

  it("deletes pods, false when already gone", async () => {
    fake.addPod({ namespace: "app", name: "job-1", nodeName: "n1", controllerKind: "Job" });
    assert.equal(await kube.deletePod(pod("app", "job-1")), true);
    assert.equal(await kube.deletePod(pod("app", "job-1")), false);
    fake.failNextRequests(/\/pods\/job-2$/, 500);
    await assert.rejects(kube.deletePod(pod("app", "job-2")), /^Error: delete pod: pod\/app\/job-2: HTTP 500 InternalError: /);
  });

  it("records node events in the default namespace", async () => {
    await kube.recordEvent("n1", { type: "Warning", reason: "DrainFailed", message: "protected job-managed pod exists" });
    await kube.recordEvent("n1", { type: "Normal", reason: "RepairStarted", message: "running the repair" });
    const [first, second] = fake.events();
    assert.equal(first?.metadata.namespace, "default");
    assert.match(first?.metadata.name, /^n1\.[0-9a-f]{16}$/);
    assert.notEqual(first?.metadata.name, second?.metadata.name);
    assert.deepEqual(first?.involvedObject, { apiVersion: "v1", kind: "Node", name: "n1", uid: "n1" });
    assert.deepEqual([first?.type, first?.reason, first?.message], ["Warning", "DrainFailed", "protected job-managed pod exists"]);
    assert.deepEqual([first?.source.component, first?.reportingComponent, first?.count], ["kintsugi", "kintsugi", 1]);
    assert.match(first?.eventTime, /\.\d{6}Z$/);
    assert.ok(first?.firstTimestamp && first.lastTimestamp);
  });

  it("waits for a slow server", async () => {
    fake.setLatency(150);
    const started = Date.now();
    assert.equal((await kube.listNodes()).length, 2);
    assert.ok(Date.now() - started >= 140);
  });

  it("reports a server that does not answer", async () => {
    await fake.close();
    await assert.rejects(kube.listNodes(), /^Error: list nodes: nodes: .*ECONNREFUSED/);
    fake = await startFakeKubeApi();
  });

  it("works with kubectl", { skip: findKubectl() === null ? "kubectl not found" : false }, async () => {
    const kubectl = (...args: string[]): Promise<string> => runKubectl(fake.kubeconfigPath, join(fake.tempDir, "kubectl-cache"), args);
    assert.equal(await kubectl("get", "nodes", "-o", "name"), "node/n1\nnode/n2\n");
    const table = (await kubectl("get", "nodes"))
      .trim()
      .split("\n")
      .map((line) => line.split(/\s+/));
    assert.deepEqual(
      table.map((cells) => cells.slice(0, 2)),
      [
        ["NAME", "STATUS"],
        ["n1", "Ready"],
        ["n2", "Ready,SchedulingDisabled"],
      ],
    );
  });
});

describe("KubeNodeOperator.fromKubeconfig", () => {
  // Every malformed shape is in kubeconfig-file.test.ts; these check that fromKubeconfig reads the file through it.
  it("names a missing kubeconfig", () => {
    assert.throws(() => KubeNodeOperator.fromKubeconfig("/nonexistent/kubeconfig"), {
      name: "ConfigError",
      message: "/nonexistent/kubeconfig: cannot read the kubeconfig: no such file",
    });
  });

  it("names a kubeconfig without a current context", async (t) => {
    const fake = await startFakeKubeApi();
    t.after(() => fake.close());
    const path = join(fake.tempDir, "empty");
    writeFileSync(path, "apiVersion: v1\nkind: Config\n");
    assert.throws(() => KubeNodeOperator.fromKubeconfig(path), { name: "ConfigError", message: `${path}: the kubeconfig has no current-context` });
  });

  it("refuses the in-cluster config outside a pod", { skip: process.env.KUBERNETES_SERVICE_HOST ? "running in a pod" : false }, () => {
    assert.throws(() => KubeNodeOperator.fromKubeconfig(null), /KUBERNETES_SERVICE_HOST is not set/);
  });
});
