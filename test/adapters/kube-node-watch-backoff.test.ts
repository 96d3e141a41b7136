import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { describe, it } from "node:test";
import * as k8s from "../../src/adapters/kube-client.js";
import { watchNodes, WATCH_RETRY_FIRST_MS } from "../../src/adapters/kube-node-watch.js";
import { until } from "../support/until.js";

/**
 * A Kubernetes API that is down (every connection is taken and dropped at once) is asked again after 1 s, then 2 s,
 * doubling to 5 minutes: not every second, which woke every loop the watch feeds every second, each failing and logging.
 */
describe("the node watch against an API server that is down", () => {
  it("waits longer before each new try: about 1 s, then about 2 s", async () => {
    const tries: number[] = [];
    const server = createServer((socket) => {
      tries.push(performance.now());
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const config = new k8s.KubeConfig();
    const port = (server.address() as AddressInfo).port;
    config.loadFromOptions({
      clusters: [{ name: "down", server: `https://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: "down", token: "t" }],
      contexts: [{ name: "down", cluster: "down", user: "down" }],
      currentContext: "down",
    });
    let changes = 0;
    const stop = watchNodes(config, { maxLineBytes: 1 << 20, watchSeconds: 300, graceSeconds: 10, log: () => {} }, () => changes++);
    try {
      await until(
        "the watch was tried three times",
        () => tries.length,
        (n) => n >= 3,
        20_000,
      );
      const [first, second, third] = tries as [number, number, number];
      assert.ok(second - first >= WATCH_RETRY_FIRST_MS * 0.9, `first wait ${second - first} ms`);
      assert.ok(third - second >= 2 * WATCH_RETRY_FIRST_MS * 0.9, `second wait ${third - second} ms: doubled`);
      assert.ok(changes <= tries.length, "at most one wake per try");
    } finally {
      stop();
      server.close();
    }
  });
});
