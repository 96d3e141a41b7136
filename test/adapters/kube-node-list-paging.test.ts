import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KubeNodeOperator, MAX_LISTED_NODES } from "../../src/adapters/kube-node-operator.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";

// About 10 KB per node, as a real Node with status.images and managedFields is: 10,000 of them are about 100 MB.
const PADDING = "x".repeat(10_000);
const NODE_COUNT = 10_000;

describe("KubeNodeOperator reads the node list in pages", () => {
  let fake: FakeKubeApi;
  before(async () => {
    fake = await startFakeKubeApi();
    for (let i = 0; i < NODE_COUNT; i++)
      fake.addNode({ name: `n${i}`, internalIP: `10.${i >> 8}.${i & 255}.1`, annotations: { "example.com/images": PADDING } });
  });
  after(() => fake.close());

  const cases = [
    { name: "10,000 nodes of 10 KB under the 64 MiB bound", expired: 0 },
    { name: "an expired continue token restarts the list once", expired: 1 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      fake.expiredContinueTokens = c.expired;
      const kube = KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath, undefined, { maxResponseBytes: 64 * 1024 * 1024 });
      const nodes = await kube.listNodes();
      assert.equal(nodes.length, NODE_COUNT);
      assert.equal(new Set(nodes.map((n) => n.name)).size, NODE_COUNT);
      assert.equal(fake.expiredContinueTokens, 0);
    });
  }

  it("a continue token that expires twice fails with a clear error", async () => {
    fake.expiredContinueTokens = 2;
    const kube = KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath);
    await assert.rejects(kube.listNodes(), /continue token expired twice \(HTTP 410 Gone\)/);
  });

  it("more nodes than the node-count bound fails naming it", async () => {
    assert.ok(MAX_LISTED_NODES >= 20_000);
    const kube = KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath, undefined, { maxNodes: 9_999 });
    await assert.rejects(kube.listNodes(), /more than 9999 nodes/);
  });
});
