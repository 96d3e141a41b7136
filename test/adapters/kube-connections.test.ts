import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { KubeNodeOperator } from "../../src/adapters/kube-node-operator.js";
import { startFakeKubeApi, writeTestKubeconfig, type FakeKubeApi } from "../support/fake-kube-api.js";
import { testServerCertificate } from "../support/test-ca.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

describe("the Kubernetes API's connections", () => {
  let fake: FakeKubeApi;
  beforeEach(async () => {
    fake = await startFakeKubeApi();
    fake.addNode({ name: "n1", internalIP: "10.0.0.1" });
    fake.addPod({ namespace: "app", name: "web-1", nodeName: "n1", controllerKind: "ReplicaSet" });
  });
  afterEach(() => fake.close());

  it("carries one call after another over one TLS connection", async () => {
    const kube = KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath);
    for (let i = 0; i < 3; i++) assert.equal((await kube.listNodes()).length, 1);
    assert.equal((await kube.listPods("n1")).length, 1);
    assert.equal(await kube.cordon("n1", "entry-1"), true);
    await kube.recordEvent("n1", { type: "Normal", reason: "RepairStarted", message: "m" });
    assert.deepEqual(await kube.evict((await kube.listPods("n1"))[0]!, { dryRun: true }), { kind: "evicted" });
    assert.equal(fake.tlsConnections, 1, `${fake.requests.length} requests`);
  });

  it("opens a new connection once the kubeconfig's CA file changes, and keeps to it", async () => {
    const dir = tempDir();
    try {
      const caFile = join(dir.path, "ca.crt");
      writeFileSync(caFile, fake.caPem);
      const kubeconfig = join(dir.path, "kubeconfig");
      writeFileSync(
        kubeconfig,
        JSON.stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [{ name: "fake", cluster: { server: fake.url, "certificate-authority": caFile } }],
          users: [{ name: "fake", user: { token: "t" } }],
          contexts: [{ name: "fake", context: { cluster: "fake", user: "fake" } }],
          "current-context": "fake",
        }),
      );
      const kube = KubeNodeOperator.fromKubeconfig(kubeconfig);
      await kube.listNodes();
      await kube.listNodes();
      assert.equal(fake.tlsConnections, 1);
      // A CA bundle rewritten (here: the same CA twice): the library reads the file for every request.
      writeFileSync(caFile, `${fake.caPem}\n${fake.caPem}`);
      await kube.listNodes();
      await kube.listNodes();
      assert.equal(fake.tlsConnections, 2, "one new connection, trusting the new bundle");
    } finally {
      dir.remove();
    }
  });
});

/** A scripted API server on 127.0.0.1 over TLS (the test CA), with its kubeconfig; it counts TLS connections. */
async function scriptedApi(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const certificate = await testServerCertificate();
  let handshakes = 0;
  const server = createServer({ cert: certificate.certPem, key: certificate.keyPem }, answer);
  server.on("secureConnection", () => handshakes++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const dir = tempDir();
  const kubeconfigPath = join(dir.path, "kubeconfig");
  writeTestKubeconfig(kubeconfigPath, `https://127.0.0.1:${(server.address() as AddressInfo).port}`, certificate.ca.certPem);
  return {
    kubeconfigPath,
    handshakes: () => handshakes,
    open: () => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      dir.remove();
    },
  };
}

/** An empty list, as every scripted answer that is not the point of its test. */
function emptyList(res: ServerResponse): void {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ kind: "List", apiVersion: "v1", metadata: {}, items: [] }));
}

/**
 * An API server whose namespace list for the label selector `declared` or `streamed` is too large (declared so, or
 * found so while read), and every other answer a small empty list; it counts TLS connections and tells how many are
 * open.
 */
function oversizedListServer(maxBytes: number) {
  return scriptedApi((req, res) => {
    const url = new URL(req.url ?? "/", "http://oversized.invalid");
    const selector = url.searchParams.get("labelSelector");
    const declared = selector === "declared";
    if (url.pathname !== "/api/v1/namespaces" || (selector !== "declared" && selector !== "streamed")) return emptyList(res);
    // Declared: the length alone refuses it; the body never comes. Streamed: bytes until the client hangs up.
    res.writeHead(200, { "Content-Type": "application/json", ...(declared && { "Content-Length": String(maxBytes + 1) }) });
    if (declared) return void res.flushHeaders();
    const chunk = Buffer.alloc(16 * 1024, " ");
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once("drain", pump);
    };
    pump();
  });
}

describe("a refused answer's connection", () => {
  const MAX_BYTES = 64 * 1024;
  for (const selector of ["declared", "streamed"]) {
    it(`is closed, not kept for the next call (an answer ${selector} larger than the bound)`, async () => {
      const api = await oversizedListServer(MAX_BYTES);
      try {
        // A call timeout far beyond the wait below: it would close the connection too.
        const kube = KubeNodeOperator.fromKubeconfig(api.kubeconfigPath, 600, { maxResponseBytes: MAX_BYTES });
        await kube.listNamespaces(null);
        assert.equal(api.handshakes(), 1);
        await assert.rejects(kube.listNamespaces(selector), /the answer (is 65537 bytes, more than the 65536 allowed|is larger than the 65536 bytes allowed)/);
        await until("the refused answer's connection is closed", api.open, (n) => n === 0);
        await kube.listNamespaces(null);
        assert.equal(api.handshakes(), 2, "the next call opens a connection of its own");
      } finally {
        await api.close();
      }
    });
  }
});

/**
 * An API server that hangs up, without an answer, on the requests `hangUp` picks by their number on their connection
 * (1 for a connection's first), as a server does that closes a connection it holds idle just as a request comes;
 * it answers every other with an empty list.
 */
async function hangingUpServer(hangUp: (nth: number) => boolean) {
  const requests: number[] = [];
  const perSocket = new WeakMap<object, number>();
  const api = await scriptedApi((req, res) => {
    const nth = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, nth);
    requests.push(nth);
    if (hangUp(nth)) return void req.socket.destroy();
    emptyList(res);
  });
  return { ...api, requests: () => requests };
}

describe("a kept connection the server hangs up on", () => {
  it("is given up, and the call sent once more on a new connection", async () => {
    const api = await hangingUpServer((nth) => nth === 2);
    try {
      const kube = KubeNodeOperator.fromKubeconfig(api.kubeconfigPath, 600);
      assert.deepEqual(await kube.listNamespaces(null), []);
      assert.deepEqual(await kube.listNamespaces(null), [], "the second call succeeds");
      assert.deepEqual(api.requests(), [1, 2, 1], "sent on the kept connection, then on a new one");
      assert.equal(api.handshakes(), 2);
    } finally {
      await api.close();
    }
  });

  it("fails the call when a new connection is hung up on: only a kept one is tried again", async () => {
    const api = await hangingUpServer(() => true);
    try {
      const kube = KubeNodeOperator.fromKubeconfig(api.kubeconfigPath, 600);
      await assert.rejects(
        kube.listNamespaces(null),
        /^Error: list namespaces: namespaces: request to https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces failed, reason: socket hang up$/,
      );
      assert.deepEqual(api.requests(), [1], "sent once");
    } finally {
      await api.close();
    }
  });
});
