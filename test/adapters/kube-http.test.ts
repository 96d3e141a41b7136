import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeNodeOperator } from "../../src/adapters/kube-node-operator.js";
import { HostileKubeApi, type HostileBehaviour } from "../support/hostile-kube-api.js";
import { until } from "../support/until.js";

const MAX_BYTES = 1024 * 1024;

describe("Kubernetes list calls against a hostile API server", () => {
  const cases: Array<[string, HostileBehaviour, RegExp]> = [
    [
      "an endless NodeList fails at the bound",
      "huge-list",
      /^Error: list nodes: nodes: the answer is larger than the 1048576 bytes allowed \(kubernetes\.max_response_bytes\)$/,
    ],
    ["an HTML page claiming to be JSON fails", "non-json", /^Error: list nodes: nodes: .*JSON/],
    ["JSON that is not a list fails, naming the call", "not-a-list", /^Error: list nodes: nodes: the answer is not a list$/],
  ];
  for (const [name, behaviour, failure] of cases) {
    it(name, async () => {
      const api = await HostileKubeApi.start(behaviour);
      try {
        const kube = KubeNodeOperator.fromKubeconfig(api.kubeconfigPath, 10, { maxResponseBytes: MAX_BYTES });
        await assert.rejects(kube.listNodes(), failure);
        await until("the server sees the list's connection end", () => api.of("list").every((a) => a.closed));
      } finally {
        await api.close();
      }
    });
  }
});
