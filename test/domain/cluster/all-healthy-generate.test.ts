import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { allHealthyNode } from "../../../src/domain/cluster/all-healthy.js";
import { generateAllHealthy, updateAllHealthy, type AllHealthyConstraints } from "../../../src/domain/cluster/all-healthy-generate.js";
import type { MachineState } from "../../../src/domain/sabakan/machine-params.js";
import type { ClusterMachine, ClusterNode, GeneratedCluster, Taint } from "../../../src/domain/cluster/types.js";
import { machine, template } from "./support.js";

// The cases of cybozu-go/cke sabakan/generator_test.go (testUpdate, testGenerate, testRegenerateAfterUpdate,
// testMachineToNode) at CKE v1.32.2 and later, with its dates (score_test.go) and its machines.
const NOW = Date.UTC(2018, 11, 2);
const F250 = Date.UTC(2019, 11, 2);
const F500 = Date.UTC(2020, 5, 2);
const F1000 = Date.UTC(2021, 11, 2);
const SPARE = "node.cybozu.io/spare";

const TMPL = template(`
name: tmpl
nodes:
- user: cybozu
  control_plane: true
- user: cybozu
  control_plane: false
control_plane_tolerations: ["foo.cybozu.com/transient"]
service_subnet: 10.0.0.0/14
`);

/** CKE's newTestMachineWithIP: role cs, RETIRED-or-not for twice the 300 s wait. */
const m = (n: number, rack: number, retire: number, state: MachineState): ClusterMachine =>
  machine(`s${String(n).padStart(2, "0")}`, { rack, retireDate: retire, state, ipv4: [`10.0.0.${n}`], durationSeconds: 600, stateSince: NOW - 600_000 });

/** testUpdate's machines [0]..[9] = 10.0.0.1..10.0.0.10. */
const MACHINES = [
  m(1, 0, F500, "HEALTHY"),
  m(2, 0, F250, "RETIRING"),
  m(3, 1, F250, "UNHEALTHY"),
  m(4, 1, F250, "UNREACHABLE"),
  m(5, 2, F250, "UNREACHABLE"),
  m(6, 2, F500, "HEALTHY"),
  m(7, 3, F1000, "HEALTHY"),
  m(8, 3, F500, "HEALTHY"),
  m(9, 4, F500, "UPDATING"),
  m(10, 4, F500, "RETIRED"),
];
const only = (...ns: number[]) => ns.map((n) => MACHINES[n - 1] as ClusterMachine);

/** A node of the current cluster as all_healthy renders it; a number without a machine is a non-existent node. */
function node(n: number, cp: boolean, taints?: Taint[], machines = MACHINES): ClusterNode {
  const mm = machines.find((x) => x.ipv4[0] === ip(n));
  const rendered: ClusterNode = mm
    ? allHealthyNode(mm, TMPL.nodes[cp ? 0 : 1] as never, cp)
    : { address: `10.100.0.${n}`, user: "cybozu", control_plane: cp, labels: {}, annotations: {}, taints: [] };
  return taints === undefined ? rendered : { ...rendered, taints };
}
const cluster = (cps: number[], workers: number[], over: Record<number, Taint[]> = {}, machines = MACHINES): GeneratedCluster => ({
  name: "tmpl",
  service_subnet: "10.0.0.0/14",
  control_plane_tolerations: ["foo.cybozu.com/transient"],
  extra: {},
  nodes: [...cps.map((n) => node(n, true, over[n], machines)), ...workers.map((n) => node(n, false, over[n], machines))],
});
const cstr = (controlPlaneCount: number, minimumWorkersRate = 0): AllHealthyConstraints => ({
  controlPlaneCount,
  minimumWorkersRate,
  minimumWorkers: 0,
  maximumWorkers: 0,
  waitSecondsToReplaceControlPlane: 0,
});
const taint = (key: string): Taint => ({ key, value: "true", effect: "NoSchedule" });
const ip = (n: number) => `10.0.0.${n}`;
/** testRegenerateAfterUpdate's machines. */
const AFTER_UPDATE = [m(1, 0, F250, "HEALTHY"), m(2, 1, F250, "RETIRED"), m(3, 0, F250, "UNREACHABLE"), m(4, 1, F250, "HEALTHY")];
const members = (c: GeneratedCluster) => ({
  cps: c.nodes
    .filter((x) => x.control_plane)
    .map((x) => x.address)
    .sort(),
  workers: c.nodes
    .filter((x) => !x.control_plane)
    .map((x) => x.address)
    .sort(),
});
const sorted = (ns: number[]) => ns.map(ip).sort();

interface UpdateCase {
  readonly name: string;
  readonly current: GeneratedCluster;
  readonly cstr: AllHealthyConstraints;
  readonly machines?: ClusterMachine[];
  readonly k8s?: Record<number, Taint[]>;
  /** CKE's expected members; `error` a CKE error; `unchanged` CKE's nil (no update at all). */
  readonly want: { cps: number[]; workers: number[] } | { error: RegExp } | "unchanged";
  /** Changes kintsugi reports that CKE's case implies (taint fixes), when CKE expects the same members. */
  readonly changes?: string[];
}

const UPDATE_CASES: UpdateCase[] = [
  { name: "RemoveNonExistent", current: cluster([1, 2, 11], [3, 4, 12]), cstr: cstr(3), want: { cps: [1, 2, 7], workers: [3, 4] } },
  {
    name: "TooManyNonExistent",
    current: cluster([1, 4, 5], [6]),
    cstr: cstr(3),
    machines: only(4, 6),
    want: { error: /more than half of the control planes/ },
  },
  { name: "NotAvailable", current: cluster([1, 4, 6], [5]), cstr: cstr(3), machines: only(1, 4, 5), want: { error: /^not enough healthy machines/ } },
  { name: "NotRemoveUnhealthyCP", current: cluster([1, 3, 6], [7]), cstr: cstr(3), want: "unchanged" },
  {
    name: "NotRemoveUnreachableCP (the unreachable taint is added)",
    current: cluster([1, 4, 6], [7], { 4: [] }),
    cstr: cstr(3),
    want: { cps: [1, 4, 6], workers: [7] },
    changes: ["taint node 10.0.0.4 with cke.cybozu.com/state=unreachable:NoSchedule: machine is UNREACHABLE"],
  },
  { name: "IncreaseCPUnused", current: cluster([1, 6], [7]), cstr: cstr(3), want: { cps: [1, 6, 8], workers: [7] } },
  { name: "IncreaseCPSpare", current: cluster([1, 6], [7, 8]), cstr: cstr(3), k8s: { 7: [taint(SPARE)] }, want: { cps: [1, 6, 7], workers: [8] } },
  { name: "IncreaseCPUnusedAndSpare", current: cluster([1, 6], [7]), cstr: cstr(3), k8s: { 7: [taint(SPARE)] }, want: { cps: [1, 6, 8], workers: [7] } },
  {
    name: "IncreaseCPSteal",
    current: cluster([1, 6], [7, 8]),
    cstr: cstr(3),
    k8s: { 8: [taint("node.cybozu.io/hoge")] },
    want: { cps: [1, 6, 7], workers: [8] },
  },
  {
    name: "IncreaseCPIgnoringLongLifeButUserTaintedNode",
    current: cluster([1, 6], [9]),
    cstr: cstr(3),
    k8s: {
      7: [{ key: "foo", value: "bar", effect: "NoSchedule" }],
      8: [
        { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" },
        { key: "cke.cybozu.com/master", effect: "NoSchedule" },
        { key: "foo.cybozu.com/transient", effect: "NoSchedule" },
      ],
    },
    want: { cps: [1, 6, 8], workers: [9] },
  },
  { name: "DecreaseCPRemoveAllCPsHealthy", current: cluster([1, 7, 8], [6]), cstr: cstr(2), want: { cps: [1, 7], workers: [6, 8] } },
  { name: "DecreaseCPRemoveUnhealthyCP", current: cluster([3, 7, 8], [6]), cstr: cstr(2), want: { cps: [7, 8], workers: [3, 6] } },
  { name: "IncreaseWorker (every healthy machine a worker)", current: cluster([1, 6], [2]), cstr: cstr(2), want: { cps: [1, 6], workers: [2, 7, 8] } },
  { name: "DecreaseWorkerRemove", current: cluster([1, 6], [10, 8, 7]), cstr: cstr(2), want: { cps: [1, 6], workers: [7, 8] } },
  {
    name: "DecreaseWorkerRemove at minimum-workers-rate 80: 2 of 10 would stay, kept",
    current: cluster([1, 6], [10, 8, 7]),
    cstr: cstr(2, 80),
    want: "unchanged",
  },
  {
    name: "Taint (a stale retiring taint is removed)",
    current: cluster([6, 1], [3, 8], { 1: [{ key: "cke.cybozu.com/state", value: "retiring", effect: "NoExecute" }] }),
    cstr: cstr(2),
    machines: only(1, 3, 6, 8),
    want: { cps: [1, 6], workers: [3, 8] },
    changes: ["remove taint cke.cybozu.com/state from node 10.0.0.1: machine is HEALTHY"],
  },
  {
    name: "UpdateNotRequired (minimum-workers-rate 90 keeps the retired worker)",
    current: cluster([1, 6], [2, 8, 10]),
    cstr: cstr(2, 90),
    machines: only(1, 2, 6, 8, 10),
    want: "unchanged",
  },
  {
    name: "RegenerateAfterUpdate: every healthy machine already a node",
    current: cluster([4], [1], {}, AFTER_UPDATE),
    cstr: cstr(1, 80),
    machines: AFTER_UPDATE,
    want: "unchanged",
  },
];

describe("all_healthy maintenance: CKE's testUpdate cases", () => {
  for (const c of UPDATE_CASES) {
    it(c.name, () => {
      const k8s = new Map(Object.entries(c.k8s ?? {}).map(([n, t]) => [ip(Number(n)), t]));
      const r = updateAllHealthy(c.current, TMPL, c.machines ?? MACHINES, k8s, c.cstr, SPARE, NOW);
      if (typeof c.want === "object" && "error" in c.want) {
        assert.ok(!r.ok, "expected an error");
        assert.match(r.error, c.want.error);
        return;
      }
      if (!r.ok) throw new Error(r.error);
      if (c.want === "unchanged") {
        assert.deepEqual(r.changes, []);
        assert.deepEqual(r.cluster, c.current);
        return;
      }
      assert.deepEqual(members(r.cluster), { cps: sorted(c.want.cps), workers: sorted(c.want.workers) });
      if (c.changes) assert.deepEqual(r.changes, c.changes);
    });
  }
});

describe("all_healthy initialization: CKE's testGenerate", () => {
  const four = [m(1, 0, F250, "HEALTHY"), m(2, 1, F250, "RETIRED"), { ...m(3, 0, F250, "UNHEALTHY"), role: "ss" }, { ...m(4, 1, F250, "HEALTHY"), role: "ss" }];
  const cases = [
    { name: "NoMachine", machines: [], cps: 1, want: null },
    { name: "Success: 1 control plane of 4 machines, the other healthy one a worker", machines: four, cps: 1, want: { cps: 1, workers: 1 } },
    {
      name: "5 healthy machines: 1 control plane and 4 workers (CKE v1.32.2 and later)",
      machines: [1, 2, 3, 4, 5].map((n) => m(n, n % 3, F500, "HEALTHY")),
      cps: 1,
      want: { cps: 1, workers: 4 },
    },
    {
      name: "only unhealthy machines beyond the control planes: no worker",
      machines: [m(1, 0, F500, "HEALTHY"), m(2, 1, F500, "UNHEALTHY")],
      cps: 1,
      want: { cps: 1, workers: 0 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = generateAllHealthy(TMPL, c.machines, cstr(c.cps, 80), null, NOW);
      if (c.want === null) {
        assert.ok(!r.ok);
        assert.match(r.error, /^not enough healthy machines/);
        return;
      }
      if (!r.ok) throw new Error(r.error);
      const got = members(r.cluster);
      assert.deepEqual({ cps: got.cps.length, workers: got.workers.length }, c.want);
      assert.equal(r.changes.length, c.want.cps + c.want.workers);
    });
  }

  it("spare nodes first as control planes, and the spare taint does not keep one out", () => {
    const machines = [m(1, 0, F1000, "HEALTHY"), m(2, 1, F250, "HEALTHY"), m(3, 2, F250, "HEALTHY")];
    const r = generateAllHealthy(TMPL, machines, cstr(1), SPARE, NOW, new Map([[ip(3), [taint(SPARE)]]]));
    if (!r.ok) throw new Error(r.error);
    assert.deepEqual(members(r.cluster), { cps: [ip(3)], workers: [ip(1), ip(2)] });
    assert.match(r.changes[0] ?? "", /; a spare node \(node\.cybozu\.io\/spare\)$/);
  });

  it("without spare_node_taint_key the spare taint is a taint like any other", () => {
    const machines = [m(1, 0, F250, "HEALTHY"), m(3, 2, F1000, "HEALTHY")];
    const r = generateAllHealthy(TMPL, machines, cstr(1), null, NOW, new Map([[ip(3), [taint(SPARE)]]]));
    if (!r.ok) throw new Error(r.error);
    assert.deepEqual(members(r.cluster).cps, [ip(1)]);
  });
});

describe("all_healthy nodes: CKE's testMachineToNode", () => {
  const base = { ...m(1, 0, Date.UTC(2018, 11, 2), "UNHEALTHY"), role: "worker", indexInRack: 1, labels: { foo: "foobar" } };
  const cases: Array<{ name: string; state: MachineState; taint: Taint | null }> = [
    { name: "unhealthy: no state taint", state: "UNHEALTHY", taint: null },
    {
      name: "unreachable: cke.cybozu.com/state=unreachable:NoSchedule",
      state: "UNREACHABLE",
      taint: { key: "cke.cybozu.com/state", value: "unreachable", effect: "NoSchedule" },
    },
    { name: "retiring: NoExecute", state: "RETIRING", taint: { key: "cke.cybozu.com/state", value: "retiring", effect: "NoExecute" } },
    { name: "retired: NoExecute", state: "RETIRED", taint: { key: "cke.cybozu.com/state", value: "retired", effect: "NoExecute" } },
  ];
  const tmpl = {
    user: "",
    control_plane: true,
    labels: { foo: "bar" },
    annotations: { hoge: "fuga" },
    taints: [{ key: "foo", effect: "NoSchedule" as const }],
  };
  for (const c of cases) {
    it(c.name, () => {
      const n = allHealthyNode({ ...base, state: c.state }, tmpl, true);
      assert.deepEqual(n.taints, c.taint ? [tmpl.taints[0], c.taint] : [tmpl.taints[0]]);
      assert.equal(n.labels["cke.cybozu.com/retire-year"], "2018");
      assert.equal(n.labels["cke.cybozu.com/retire-month"], "2018-12");
      assert.equal(n.labels["topology.kubernetes.io/zone"], "rack0");
      assert.equal(n.labels["failure-domain.beta.kubernetes.io/zone"], undefined);
      assert.equal(n.labels["sabakan.cke.cybozu.com/foo"], "foobar");
      assert.equal(n.labels["node-role.kubernetes.io/control-plane"], "true");
    });
  }
});
