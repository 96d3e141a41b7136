import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ETCD_SKIP } from "../support/test-etcd.js";
import { seedFrom, type FaultKind } from "./fault-plan.js";
import { runFaultSuite } from "./fault-suite.js";

// Each once, in an order drawn from the seed; the faults just before a command run on the three-member etcd
// (etcd-member-cut.e2e.test.ts), so that the two files, which npm test runs side by side, take about as long.
const KINDS: readonly FaultKind[] = ["kill-during", "stop-during", "partition-leader", "partition-etcd", "pause-etcd"];

describe("fault suite: three replicas on a one-member etcd, faults drawn from a seed", { skip: ETCD_SKIP }, () => {
  it(
    "no step runs twice, no two commands on a machine at once, no deposed leader writes, every entry ends and its history explains every interruption, /health says 503 in an outage",
    { timeout: 15 * 60_000 },
    async () => {
      const result = await runFaultSuite({
        seed: seedFrom([], process.env),
        rounds: KINDS.length,
        etcdMembers: 1,
        kinds: KINDS,
        print: (line) => console.log(line),
      });
      assert.deepEqual(result.violations, [], result.summary);
    },
  );
});
