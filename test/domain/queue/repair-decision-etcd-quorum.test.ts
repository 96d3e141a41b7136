import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ControlPlane } from "../../../src/domain/queue/control-planes.js";
import { etcdNotGoodForRepair } from "../../../src/domain/queue/etcd-quorum.js";
import type { RepairSnapshot } from "../../../src/domain/queue/repair-plan.js";
import { SEC, T, assertDecision, entry, snapshot, starts, watched, type DecisionCase } from "./repair-decision-support.js";

// CKE stops every repair operation while etcd is not good for repair (server/strategy.go DecideOps drops what
// repairOps returned when server/node_filter.go EtcdIsGoodForRepair is false). Control plane cpN is at 10.0.0.N;
// entries 5 and up repair workers.

const cp = (n: number, ready = true): ControlPlane => ({ name: `cp${n}`, addresses: [`10.0.0.${n}`, `cp${n}`], ready, rebooting: false });
const THREE_TWO_DOWN = [cp(1), cp(2, false), cp(3, false)];
const withCount = (s: RepairSnapshot, controlPlaneCount: number): RepairSnapshot => ({ ...s, controlPlaneCount });
const NOT_GOOD =
  /^etcd is not good for repair: 1 of 3 control planes are Ready \(not Ready: cp2, cp3\), no majority of them is Ready \(etcd's quorum\); no repair operation runs until it is$/;

const CASES: DecisionCase[] = [
  {
    name: "2 of 3 control planes not Ready: a worker's queued entry does not start",
    snapshot: snapshot([entry(5)], {}, { max: 3, controlPlanes: THREE_TWO_DOWN }),
    want: [],
    held: { 5: NOT_GOOD },
  },
  {
    name: "2 of 3 not Ready: nothing moves at all, the dead control planes' entries, a watch that ran out and a drain past its timeout included",
    snapshot: snapshot(
      [entry(2), watched(5), entry(6, { status: "processing", stepStatus: "draining", lastTransitionTime: T - 601 * SEC })],
      {},
      { max: 3, controlPlanes: THREE_TWO_DOWN },
    ),
    want: [],
    held: { 2: NOT_GOOD, 5: NOT_GOOD, 6: NOT_GOOD },
  },
  {
    name: "2 of 3 not Ready: a healthy entry does not succeed and a deleted one is not dequeued (CKE drops its finish and dequeue operations too)",
    snapshot: snapshot([watched(5), entry(6, { deleted: true })], { 5: { healthy: true } }, { max: 3, controlPlanes: THREE_TWO_DOWN }),
    want: [],
    held: { 5: NOT_GOOD, 6: NOT_GOOD },
  },
  {
    name: "1 of 3 not Ready: the dead control plane and a worker are repaired (CKE tolerates the one failed member)",
    snapshot: snapshot([entry(2), entry(5)], {}, { max: 3, controlPlanes: [cp(1), cp(2, false), cp(3)] }),
    want: [starts(2), starts(5)],
    held: {},
  },
  {
    name: "control-plane-count 4 with 3 control planes, 1 not Ready: too few in sync (CKE's RepairBlockedByMissingControlPlane)",
    snapshot: withCount(snapshot([entry(2)], {}, { max: 3, controlPlanes: [cp(1), cp(2, false), cp(3)] }), 4),
    want: [],
    held: { 2: /^etcd is not good for repair: 2 of 3 control planes are Ready \(not Ready: cp2\), fewer than control-plane-count 4 - 1 are Ready;/ },
  },
  {
    name: "5 control planes, 2 not Ready, control-plane-count 3: a majority and all but one of the count are Ready, so repairs go on",
    snapshot: withCount(snapshot([entry(5)], {}, { max: 3, controlPlanes: [cp(1), cp(2, false), cp(3, false), cp(4), cp(6)] }), 3),
    want: [starts(5)],
    held: {},
  },
  {
    name: "2 control planes, 1 not Ready: one of two is no majority, etcd has no quorum",
    snapshot: snapshot([entry(2), entry(5)], {}, { max: 3, controlPlanes: [cp(1), cp(2, false)] }),
    want: [],
    held: { 2: /^etcd is not good for repair: 1 of 2/, 5: /^etcd is not good for repair: 1 of 2/ },
  },
  {
    name: "no control plane known: nothing is known of etcd, and a worker starts",
    snapshot: snapshot([entry(5)], {}, { max: 3, controlPlanes: [] }),
    want: [starts(5)],
    held: {},
  },
];

describe("decideRepairActions: no repair operation while etcd is not good for repair (CKE EtcdIsGoodForRepair)", () => {
  for (const c of CASES) it(c.name, () => void assertDecision(c));

  it("names five control planes at most in its wait", () => {
    const planes = Array.from({ length: 9 }, (_, i) => cp(i + 1, i < 2));
    assert.match(etcdNotGoodForRepair(planes, 1) ?? "", /\(not Ready: cp3, cp4, cp5, cp6, cp7 and 2 more\)/);
  });
});
