import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ETCD_SKIP } from "../support/test-etcd.js";
import { seedFrom, type FaultKind } from "./fault-plan.js";
import { runFaultSuite } from "./fault-suite.js";

// Each once, in an order drawn from the seed (faults.e2e.test.ts strikes the one-member etcd with the others).
const KINDS: readonly FaultKind[] = ["cut-member", "kill-before", "stop-before"];

describe("fault suite: three replicas on a three-member etcd, one member cut off among the leader's faults", { skip: ETCD_SKIP }, () => {
  it(
    "the checks hold with an etcd member cut off from its peers and its clients, and with the leader killed or stopped just before a command",
    { timeout: 15 * 60_000 },
    async () => {
      const result = await runFaultSuite({
        seed: seedFrom([], process.env),
        rounds: KINDS.length,
        etcdMembers: 3,
        kinds: KINDS,
        print: (line) => console.log(line),
      });
      assert.deepEqual(result.violations, [], result.summary);
    },
  );
});
