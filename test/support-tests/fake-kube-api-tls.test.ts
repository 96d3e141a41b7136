import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { KubeNodeOperator } from "../../src/adapters/kube-node-operator.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { findKubectl, runKubectl } from "../support/kubectl.js";
import { createTestCa } from "../support/test-ca.js";

interface Kubeconfig {
  clusters: Array<{ name: string; cluster: Record<string, unknown> }>;
}

const readKubeconfig = (path: string): Kubeconfig => JSON.parse(readFileSync(path, "utf8")) as Kubeconfig;
const base64 = (pem: string): string => Buffer.from(pem).toString("base64");

describe("test Kubernetes API: HTTPS with the test CA, as a real cluster", () => {
  let fake: FakeKubeApi;
  let strangerKubeconfig: string;
  before(async () => {
    fake = await startFakeKubeApi();
    fake.addNode({ name: "n1", internalIP: "10.0.0.1" });
    fake.addNode({ name: "n2", internalIP: "10.0.0.2" });
    // The same server, but trusting another CA, which never signed the fake's certificate.
    const stranger = await createTestCa("some other CA");
    const config = readKubeconfig(fake.kubeconfigPath);
    for (const { cluster } of config.clusters) cluster["certificate-authority-data"] = base64(stranger.certPem);
    strangerKubeconfig = join(fake.tempDir, "kubeconfig-other-ca");
    writeFileSync(strangerKubeconfig, JSON.stringify(config));
  });
  after(() => fake.close());

  it("writes a kubeconfig that names its CA and never skips verification", () => {
    const [cluster, ...others] = readKubeconfig(fake.kubeconfigPath).clusters;
    assert.deepEqual(others, []);
    assert.match(String(cluster?.cluster.server), /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(cluster?.cluster.server, fake.url);
    assert.equal(cluster?.cluster["certificate-authority-data"], base64(fake.caPem));
    assert.match(fake.caPem, /^-----BEGIN CERTIFICATE-----\n/);
    assert.ok(!("insecure-skip-tls-verify" in (cluster?.cluster ?? {})), JSON.stringify(cluster));
  });

  it("answers the real client over https, verified with the CA of its kubeconfig", async () => {
    const before = fake.requests.length;
    const nodes = await KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath).listNodes();
    assert.deepEqual(
      nodes.map((n) => n.name),
      ["n1", "n2"],
    );
    assert.deepEqual(
      fake.requests.slice(before).map((r) => `${r.method} ${r.path}`),
      ["GET /api/v1/nodes"],
    );
  });

  it("refuses a client that trusts a different CA, in the TLS handshake", async () => {
    const before = fake.requests.length;
    await assert.rejects(
      KubeNodeOperator.fromKubeconfig(strangerKubeconfig, 10).listNodes(),
      /^Error: list nodes: nodes: request to https:\/\/127\.0\.0\.1:\d+\/api\/v1\/nodes\?limit=500 failed, reason: unable to verify the first certificate$/,
    );
    assert.equal(fake.requests.length, before, "no request got through");
  });

  it(
    "is reached by kubectl trusting its CA, and refused by kubectl trusting another",
    { skip: findKubectl() === null ? "kubectl not found" : false },
    async () => {
      const cacheDir = join(fake.tempDir, "kubectl-cache");
      assert.equal(await runKubectl(fake.kubeconfigPath, cacheDir, ["get", "nodes", "-o", "name"]), "node/n1\nnode/n2\n");
      await assert.rejects(
        runKubectl(strangerKubeconfig, join(fake.tempDir, "kubectl-cache-other-ca"), ["get", "nodes", "-o", "name"]),
        /x509: certificate signed by unknown authority/,
      );
    },
  );
});
