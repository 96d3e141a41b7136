import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { allHealthyWorkerTarget, mayRemoveRetiredWorker, preferSpareNodes, retireYearLabel, stateTaint } from "../../../src/domain/cluster/all-healthy.js";

describe("all_healthy worker target (CKE increaseWorker)", () => {
  const cases = [
    { name: "5 healthy, 1 control plane: 4 workers, as CKE", healthy: 5, cps: 1, want: 4 },
    { name: "3 healthy, 3 control planes: no worker", healthy: 3, cps: 3, want: 0 },
    { name: "fewer healthy than control planes: never negative", healthy: 1, cps: 3, want: 0 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(allHealthyWorkerTarget(c.healthy, c.cps), c.want));
});

describe("retired worker removal under minimum-workers-rate (CKE decreaseWorker)", () => {
  const cases = [
    { name: "9 of 10 left at rate 80: allowed", workers: 10, machines: 10, rate: 80, want: true },
    { name: "exactly at the rate: allowed", workers: 9, machines: 10, rate: 80, want: true },
    { name: "7 of 10 left at rate 80: refused", workers: 8, machines: 10, rate: 80, want: false },
    { name: "rate 0: always allowed", workers: 1, machines: 10, rate: 0, want: true },
    { name: "no machines: refused", workers: 0, machines: 0, rate: 0, want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(mayRemoveRetiredWorker(c.workers, c.machines, c.rate), c.want));
});

describe("spare nodes first as control planes (CKE selectControlPlane)", () => {
  const isSpare = (s: string): boolean => s.startsWith("spare");
  const cases = [
    { name: "spare nodes only when there are some", in: ["a", "spare1", "b", "spare2"], want: ["spare1", "spare2"] },
    { name: "all candidates when no spare", in: ["a", "b"], want: ["a", "b"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(preferSpareNodes(c.in, isSpare), c.want));
});

describe("state taints and retire-year (CKE MachineToNode)", () => {
  it("unreachable: cke.cybozu.com/state=unreachable:NoSchedule", () =>
    assert.deepEqual(stateTaint("UNREACHABLE"), { key: "cke.cybozu.com/state", value: "unreachable", effect: "NoSchedule" }));
  it("retiring and retired: NoExecute", () => {
    assert.equal(stateTaint("RETIRING")?.effect, "NoExecute");
    assert.equal(stateTaint("RETIRED")?.value, "retired");
  });
  it("healthy: no taint", () => assert.equal(stateTaint("HEALTHY"), undefined));
  it("retire-year is the UTC year of the retire date", () => assert.equal(retireYearLabel(Date.parse("2031-12-31T23:00:00Z")), "2031"));
});
