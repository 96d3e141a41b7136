import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ETCD_SKIP } from "../support/test-etcd.js";
import { ALL_FAULT_KINDS, seedFrom } from "./fault-plan.js";
import { runFaultSuite } from "./fault-suite.js";

// Every fault kind but the cut-off etcd member (etcd-member-cut.e2e.test.ts) once, in an order drawn from the seed.
const ROUNDS = 7;

describe("fault suite: three replicas on a one-member etcd, faults drawn from a seed", { skip: ETCD_SKIP }, () => {
  it(
    "no step runs twice, no two commands on a machine at once, no deposed leader writes, every entry ends and its history explains every interruption",
    { timeout: 15 * 60_000 },
    async () => {
      const result = await runFaultSuite({
        seed: seedFrom([], process.env),
        rounds: ROUNDS,
        etcdMembers: 1,
        kinds: ALL_FAULT_KINDS.filter((k) => k !== "cut-member"),
        print: (line) => console.log(line),
      });
      assert.deepEqual(result.violations, [], result.summary);
    },
  );
});
