import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { KubeNodeOperator } from "../../src/adapters/kube-node-operator.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { until } from "../support/until.js";

describe("the node watch against a server that never answers", () => {
  let fake: FakeKubeApi;
  let kube: KubeNodeOperator;
  beforeEach(async () => {
    fake = await startFakeKubeApi();
    kube = KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath);
  });
  afterEach(() => fake.close());

  it("stops a node watch whose server never answers, closing its connection", async () => {
    fake.blackhole(true);
    const stop = kube.watchNodes(() => {});
    await until(
      "the watch request is held",
      () => fake.requests.filter((r) => r.query.watch === "true").length,
      (n) => n === 1,
    );
    assert.equal(await fake.openConnections(), 1);
    stop();
    await until(
      "the watch connection is closed",
      () => fake.openConnections(),
      (n) => n === 0,
    );
  });
});
