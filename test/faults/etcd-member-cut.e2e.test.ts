import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ETCD_SKIP } from "../support/test-etcd.js";
import { seedFrom } from "./fault-plan.js";
import { runFaultSuite } from "./fault-suite.js";

describe("fault suite: three replicas on a three-member etcd, one member cut off among the leader's faults", { skip: ETCD_SKIP }, () => {
  it("the checks hold with an etcd member cut off from its peers and its clients", { timeout: 15 * 60_000 }, async () => {
    const result = await runFaultSuite({
      seed: seedFrom([], process.env),
      rounds: 3,
      etcdMembers: 3,
      kinds: ["cut-member", "kill-during", "stop-before"],
      print: (line) => console.log(line),
    });
    assert.deepEqual(result.violations, [], result.summary);
  });
});
