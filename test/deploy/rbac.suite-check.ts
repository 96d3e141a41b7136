// The shipped Kubernetes RBAC rules grant exactly what kintsugi uses: every call it makes, and nothing it never makes.
//
// scripts/run-tests.mjs runs this file after the whole suite, with KINTSUGI_KUBE_CALLS_DIR holding what every test's
// fake Kubernetes API served (test/support/fake-kube-api-calls.ts): the calls of every runner, drain, health check,
// cluster generation and adapter test. Run alone (`node scripts/run-tests.mjs test/deploy/rbac.suite-check.ts`), it
// drives every operation of kintsugi's Kubernetes adapter against a fake itself and checks those calls instead.
// It is not a *.test.ts file, so the main run does not pick it up before the records are complete.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { before, describe, it } from "node:test";
import { KubeNodeOperator } from "../../src/adapters/kube-node-operator.js";
import type { NodeOperator, NodePod } from "../../src/adapters/ports.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { KUBE_CALLS_DIR_ENV, readKubeCalls, type RecordedKubeCall } from "../support/fake-kube-api-calls.js";
import { boundRules, describeCall, grantsOf, isGranted, uses } from "../support/rbac-grants.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

const RBAC_FILE = fileURLToPath(new URL("../../deploy/kubernetes/base/rbac.yaml", import.meta.url));
const suiteDir = process.env[KUBE_CALLS_DIR_ENV];

const pod = (name: string): NodePod => ({ namespace: "apps", name, controllerKind: "ReplicaSet", phase: "Running", labels: {} });

/**
 * One driver per operation of kintsugi's Kubernetes port (the mapped type makes a new operation without a driver a
 * type error), in an order in which each one does its whole work: uncordon after cordon, so that it patches.
 */
const DRIVERS: { readonly [K in keyof NodeOperator]: (kube: NodeOperator, fake: FakeKubeApi) => Promise<unknown> } = {
  listNodes: (kube) => kube.listNodes(),
  watchNodes: async (kube, fake) => {
    const stop = kube.watchNodes(() => {});
    await until("the node watch is open", () => fake.requests.some((r) => r.query["watch"] === "true"));
    stop();
  },
  cordon: (kube) => kube.cordon("n1", "rbac-check"),
  uncordon: (kube) => kube.uncordon("n1", "rbac-check"),
  listPods: (kube) => kube.listPods("n1"),
  listNamespaces: async (kube) => {
    await kube.listNamespaces(null);
    await kube.listNamespaces("team=neco");
  },
  evict: async (kube) => {
    await kube.evict(pod("web-1"), { dryRun: true });
    await kube.evict(pod("web-1"), { dryRun: false });
  },
  deletePod: (kube) => kube.deletePod(pod("job-1")),
  recordEvent: (kube) => kube.recordEvent("n1", { type: "Normal", reason: "RepairStarted", message: "rbac check" }),
};

/** The calls of every operation of {@link KubeNodeOperator}, recorded by a fake as the suite's fakes record them. */
async function callsOfEveryOperation(): Promise<RecordedKubeCall[]> {
  const dir = tempDir("kintsugi-kube-calls-");
  process.env[KUBE_CALLS_DIR_ENV] = dir.path;
  const fake = await startFakeKubeApi();
  delete process.env[KUBE_CALLS_DIR_ENV];
  try {
    fake.addNode({ name: "n1", internalIP: "10.0.0.1" });
    for (const name of ["web-1", "job-1"]) fake.addPod({ namespace: "apps", name, nodeName: "n1" });
    const kube = KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath);
    for (const drive of Object.values(DRIVERS)) await drive(kube, fake);
    return readKubeCalls(dir.path);
  } finally {
    await fake.close();
    dir.remove();
  }
}

describe(`the shipped RBAC rules (deploy/kubernetes/base/rbac.yaml) grant exactly what kintsugi uses: ${suiteDir ? "the calls of the whole test suite" : "the calls of every operation of its Kubernetes adapter"}`, () => {
  const bound = boundRules(RBAC_FILE, "kintsugi", "kintsugi");
  let calls: RecordedKubeCall[] = [];
  before(async () => {
    calls = (suiteDir ? readKubeCalls(suiteDir) : await callsOfEveryOperation()).filter((c) => c.client === "kintsugi");
  });

  it("kintsugi made calls to check (the fakes recorded them)", () => {
    assert.ok(calls.length > 0, `no Kubernetes API calls were recorded${suiteDir ? ` in ${suiteDir}` : ""}`);
  });

  it("every call kintsugi made is granted", () => {
    const denied = [...new Set(calls.filter((c) => !isGranted(c, bound)).map((c) => `${describeCall(c)} (${c.source})`))];
    assert.deepEqual(denied, [], `the shipped rules do not grant:\n${denied.join("\n")}`);
  });

  it("every grant is used by some call", () => {
    const unused = grantsOf(bound)
      .filter((grant) => !calls.some((call) => uses(call, grant)))
      .map((g) => `${g.from}: ${g.verb} ${g.resource}${g.group ? ` (API group ${g.group})` : ""}${g.namespace ? ` in ${g.namespace}` : ""}`);
    assert.deepEqual(unused, [], `the shipped rules grant what kintsugi never used:\n${unused.join("\n")}`);
  });
});
