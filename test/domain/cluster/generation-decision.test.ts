import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideGeneration, type GenerationDecision, type GenerationInput } from "../../../src/domain/cluster/generation-decision.js";
import {
  NOT_WAITING,
  type ClusterConstraints,
  type ClusterMachine,
  type ClusterTemplate,
  type GeneratedCluster,
  type Taint,
} from "../../../src/domain/cluster/types.js";
import type { SelectionPolicy } from "../../../src/domain/cluster/worker-selection.js";
import { DAY, MINIMAL, NOW, WEIGHTED, fleet, machine, template } from "./support.js";

const LATER = NOW + 60_000;
const sized = (controlPlaneCount: number, minimumWorkers: number, maximumWorkers = 0): ClusterConstraints => ({
  controlPlaneCount,
  minimumWorkers,
  maximumWorkers,
  waitSecondsToReplaceControlPlane: 1800,
});
const FLEET = fleet(10, 5);
/** A quiet round: nothing to change, no control plane waiting. */
const UNCHANGED: GenerationDecision = { kind: "unchanged", waiting: NOT_WAITING };

interface Round {
  template?: ClusterTemplate;
  current?: GeneratedCluster | null;
  machines?: readonly ClusterMachine[];
  taints?: Record<string, Taint[]>;
  rebooting?: string[];
  constraints?: ClusterConstraints;
  policy?: SelectionPolicy;
  templateChanged?: boolean;
}
const input = (r: Round): GenerationInput => ({
  ...(r.policy && { policy: r.policy }),
  ...(r.templateChanged !== undefined && { templateChanged: r.templateChanged }),
  template: r.template ?? MINIMAL,
  current: r.current ?? null,
  machines: r.machines ?? FLEET,
  nodeTaints: new Map(Object.entries(r.taints ?? {})),
  rebootingNodes: new Set(r.rebooting ?? []),
  constraints: r.constraints ?? sized(3, 3),
});
const decide = (r: Round = {}, now = NOW) => decideGeneration(input(r), now);

function generated(d: GenerationDecision): Extract<GenerationDecision, { kind: "generated" }> {
  if (d.kind !== "generated") throw new Error(`expected generated, got ${JSON.stringify(d)}`);
  return d;
}
function failed(d: GenerationDecision): Extract<GenerationDecision, { kind: "failed" }> {
  if (d.kind !== "failed") throw new Error(`expected failed, got ${JSON.stringify(d)}`);
  return d;
}
const cpAddresses = (c: GeneratedCluster) => c.nodes.filter((n) => n.control_plane).map((n) => n.address);
const workerAddresses = (c: GeneratedCluster) => c.nodes.filter((n) => !n.control_plane).map((n) => n.address);
const at = <T>(xs: readonly T[], i: number): T => xs[i] as T;
/** `machines` with the ones at `addresses` changed (or dropped with `null`). */
function fleetWith(changes: Record<string, Partial<ClusterMachine> | null>, machines: readonly ClusterMachine[] = FLEET): ClusterMachine[] {
  return machines.flatMap((m) => {
    const c = changes[m.ipv4[0] as string];
    return c === null ? [] : [{ ...m, ...c }];
  });
}

/** 3 control planes and 3 workers out of FLEET, as the first round makes them. */
const BASE = generated(decide()).cluster;
const CPS = cpAddresses(BASE);
const WORKERS = workerAddresses(BASE);

describe("decideGeneration", () => {
  describe("initialization (no configuration yet)", () => {
    const cases: Array<[string, Round, number]> = [
      ["3 control planes and 3 workers", {}, 6],
      ["1 control plane and no workers", { constraints: sized(1, 0) }, 1],
      ["weighted template", { template: WEIGHTED, machines: fleet(30, 5, (i) => ({ role: at(["cs", "ss", "gpu"], i % 3) })), constraints: sized(3, 10) }, 13],
    ];
    for (const [name, round, nodes] of cases) {
      it(`generates from the template: ${name}`, () => {
        const d = generated(decide(round));
        assert.equal(d.cluster.nodes.length, nodes);
        assert.equal(d.changes[0], `initialize the cluster from the template: ${nodes} nodes`);
        // Then one sentence per node added.
        assert.equal(d.changes.length, 1 + nodes);
        assert.ok(
          d.changes.slice(1).every((c) => /^add (control plane|worker) /.test(c)),
          d.changes.join("\n"),
        );
      });
    }

    const failures: Array<[string, Round]> = [
      ["too few machines for the control planes", { machines: fleet(2, 2) }],
      ["too few machines for the workers", { machines: fleet(4, 4) }],
      ["enough machines but too few healthy", { machines: fleet(10, 5, (i) => ({ state: i < 5 ? "UNHEALTHY" : "HEALTHY" })) }],
      ["no machines at all", { machines: [] }],
    ];
    for (const [name, round] of failures) {
      it(`fails when there are not enough healthy machines: ${name}`, () => {
        const d = failed(decide(round));
        assert.ok(d.error.startsWith("cannot initialize the cluster: not enough healthy machines"), d.error);
      });
    }

    it("the first control plane added is the best candidate", () => {
      assert.equal(generated(decide()).changes[1]?.startsWith(`add control plane ${at(CPS, 0)} `), true);
    });

    describe("Node taints on the best control-plane candidate", () => {
      // m001 retires last, so it is the best candidate for the one control plane.
      const machines = [machine("m001", { retireDate: NOW + 3000 * DAY }), machine("m002"), machine("m003", { rack: 1 }), machine("m004", { rack: 1 })];
      const best = machines[0]?.ipv4[0] as string;
      const TOLERATING = template(`
name: cluster
nodes:
- user: cybozu
  control_plane: true
- user: cybozu
service_subnet: 10.68.0.0/16
control_plane_tolerations: [dedicated]
`);
      const cases: Array<[string, Taint[], ClusterTemplate, boolean]> = [
        ["no taint: it is the control plane", [], MINIMAL, true],
        ["an intolerable taint keeps it out", [{ key: "dedicated", value: "db", effect: "NoSchedule" }], MINIMAL, false],
        ["an intolerable taint without a value keeps it out", [{ key: "example.com/maintenance", effect: "NoExecute" }], MINIMAL, false],
        ["a taint the template tolerates does not", [{ key: "dedicated", value: "db", effect: "NoSchedule" }], TOLERATING, true],
        ["a node.kubernetes.io/ taint does not", [{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }], MINIMAL, true],
        ["the state taint does not", [{ key: "cke.cybozu.com/state", value: "repairing", effect: "NoSchedule" }], MINIMAL, true],
      ];
      for (const [name, taints, tmpl, inControlPlane] of cases) {
        it(name, () => {
          const d = generated(decide({ template: tmpl, machines, taints: { [best]: taints }, constraints: sized(1, 1) }));
          assert.equal(cpAddresses(d.cluster).length, 1);
          assert.equal(cpAddresses(d.cluster).includes(best), inControlPlane, d.changes.join("\n"));
          assert.equal(
            d.changes.some((c) => c.startsWith(`add control plane ${best} `)),
            inControlPlane,
          );
        });
      }
    });

    it("is deterministic: the same input and now give the same decision", () => {
      assert.deepEqual(decide(), decide());
    });
  });

  describe("maintenance (a configuration in force)", () => {
    const quiet: Array<[string, Round]> = [
      ["the minimal template", {}],
      ["one control plane, no workers", { constraints: sized(1, 0) }],
      ["the weighted template", { template: WEIGHTED, machines: fleet(30, 5, (i) => ({ role: at(["cs", "ss", "gpu"], i % 3) })), constraints: sized(3, 10) }],
      ["a retiring machine not in the cluster", { machines: fleet(10, 5, (i) => ({ state: i === 9 ? "RETIRING" : "HEALTHY" })) }],
    ];
    for (const [name, round] of quiet) {
      const first = generated(decide(round)).cluster;
      it(`is unchanged when maintenance would produce the configuration in force: ${name}`, () => {
        assert.deepEqual(decide({ ...round, current: first }, LATER), UNCHANGED);
      });

      it(`is unchanged after a JSON round trip of the configuration in force: ${name}`, () => {
        const stored = JSON.parse(JSON.stringify(first)) as GeneratedCluster;
        assert.deepEqual(decide({ ...round, current: stored }, LATER), UNCHANGED);
      });
    }

    it("is unchanged when the machines are listed in another order", () => {
      assert.deepEqual(decide({ current: BASE, machines: [...FLEET].reverse() }, LATER), UNCHANGED);
    });

    it("is unchanged when the configuration in force lists its keys in another order", () => {
      const reordered: GeneratedCluster = {
        extra: BASE.extra,
        control_plane_tolerations: BASE.control_plane_tolerations,
        service_subnet: BASE.service_subnet,
        nodes: BASE.nodes.map((n) => ({
          taints: n.taints,
          annotations: Object.fromEntries(Object.entries(n.annotations).reverse()),
          labels: Object.fromEntries(Object.entries(n.labels).reverse()),
          control_plane: n.control_plane,
          user: n.user,
          address: n.address,
        })),
        name: BASE.name,
      };
      assert.deepEqual(decide({ current: reordered }, LATER), UNCHANGED);
    });

    it("generates when a worker's machine turns RETIRING, naming the address", () => {
      const worker = at(WORKERS, 1);
      const d = generated(decide({ current: BASE, machines: fleetWith({ [worker]: { state: "RETIRING" } }) }, LATER));
      assert.ok(d.changes.length > 0);
      assert.ok(
        d.changes.some((c) => c.includes(worker)),
        d.changes.join("\n"),
      );
      assert.ok(!d.changes.some((c) => c.startsWith("initialize")));
      const retiring = d.cluster.nodes.find((n) => n.address === worker);
      // Either still in the cluster with the state taint, or replaced.
      if (retiring) assert.deepEqual(retiring.taints, [{ key: "cke.cybozu.com/state", value: "retiring", effect: "NoExecute" }]);
    });

    it("generates exactly the taint change for a retiring worker when the healthy workers still suffice", () => {
      // 3 workers, minimum-workers 2: the retiring one is tainted, not replaced.
      const worker = at(WORKERS, 1);
      const d = generated(decide({ current: BASE, machines: fleetWith({ [worker]: { state: "RETIRING" } }), constraints: sized(3, 2) }, LATER));
      assert.deepEqual(d.changes, [`taint node ${worker} with cke.cybozu.com/state=retiring:NoExecute: machine is RETIRING`]);
      assert.deepEqual(d.cluster.nodes.find((n) => n.address === worker)?.taints, [{ key: "cke.cybozu.com/state", value: "retiring", effect: "NoExecute" }]);
    });

    it("adds a worker when the retiring one leaves too few healthy workers", () => {
      const worker = at(WORKERS, 1);
      const d = generated(decide({ current: BASE, machines: fleetWith({ [worker]: { state: "RETIRING" } }) }, LATER));
      assert.ok(
        d.changes.some((c) => c.startsWith("add worker ")),
        d.changes.join("\n"),
      );
      assert.ok(d.changes.includes(`taint node ${worker} with cke.cybozu.com/state=retiring:NoExecute: machine is RETIRING`), d.changes.join("\n"));
    });

    it("generates when a worker disappears from sabakan's list, and the result is then stable", () => {
      const worker = at(WORKERS, 0);
      const machines = fleetWith({ [worker]: null });
      const d = generated(decide({ current: BASE, machines }, LATER));
      assert.ok(d.changes.some((c) => c.includes(worker)));
      assert.ok(!d.cluster.nodes.some((n) => n.address === worker));
      assert.deepEqual(decide({ current: d.cluster, machines }, LATER + 60_000), UNCHANGED);
    });

    it("generates when the constraints change", () => {
      const d = generated(decide({ current: BASE, constraints: sized(3, 4) }, LATER));
      assert.equal(workerAddresses(d.cluster).length, 4);
      assert.ok(d.changes.some((c) => c.startsWith("add worker ")));
    });

    it("regenerates the same nodes when a new template was set (CKE's Regenerate)", () => {
      const d = generated(decide({ current: BASE, template: { ...MINIMAL, service_subnet: "10.69.0.0/16" }, templateChanged: true }, LATER));
      assert.equal(d.cluster.service_subnet, "10.69.0.0/16");
      assert.deepEqual(d.changes, ["regenerate the same nodes from the new template", "update cluster-wide settings from the template: service_subnet"]);
      assert.deepEqual(
        d.cluster.nodes.map((n) => n.address),
        BASE.nodes.map((n) => n.address),
      );
    });

    it("keeps the configuration in force when only the template's text differs but no new template was set", () => {
      assert.deepEqual(decide({ current: BASE, template: { ...MINIMAL, service_subnet: "10.69.0.0/16" } }, LATER), UNCHANGED);
    });

    describe("spare_node_taint_key: the template's, as CKE reads it; the config's overrides it", () => {
      const SPARE_TEMPLATE = { ...MINIMAL, extra: { sabakan: { spare_node_taint_key: "example.com/spare" } } };
      // m009 retires soonest of the ten, so without the spare key it would never be the control plane.
      const spare = at(FLEET, 9).ipv4[0] as string;
      const taints = { [spare]: [{ key: "example.com/spare", effect: "NoSchedule" as const }] };
      const cases: Array<[string, string | null, boolean]> = [
        ["the key only in the template: the spare node is the control plane", null, true],
        ["the config's own key overrides the template's", "other.example.com/spare", false],
      ];
      for (const [name, configured, chosen] of cases) {
        it(name, () => {
          const policy = { workerSelection: "all_healthy" as const, spareNodeTaintKey: configured };
          const d = generated(decide({ template: SPARE_TEMPLATE, taints, constraints: sized(1, 0), policy }));
          assert.equal(cpAddresses(d.cluster).includes(spare), chosen, d.changes.join("\n"));
        });
      }
    });

    // CKE (sabakan/integrate.go, generator.go Update): no new cluster when no step applies and the template is the
    // one the cluster was made from; a step that applies renders every node afresh.
    describe("where CKE makes a new generation, and where it does not", () => {
      const relabelled = FLEET.map((m) => ({ ...m, labels: { ...m.labels, datacenter: "dc2" } }));
      for (const workerSelection of ["weighted", "all_healthy"] as const) {
        const policy = { workerSelection, spareNodeTaintKey: null };
        const first = generated(decide({ policy })).cluster;
        it(`${workerSelection}: a sabakan label change alone makes none`, () => {
          assert.deepEqual(decide({ current: first, machines: relabelled, policy }, LATER), UNCHANGED);
        });
        it(`${workerSelection}: a retire date changed in sabakan alone makes none`, () => {
          const later = FLEET.map((m) => ({ ...m, retireDate: m.retireDate + 400 * DAY }));
          assert.deepEqual(decide({ current: first, machines: later, policy }, LATER), UNCHANGED);
        });
        it(`${workerSelection}: a new template renders the new labels (Regenerate)`, () => {
          const d = generated(decide({ current: first, machines: relabelled, policy, templateChanged: true }, LATER));
          assert.ok(d.cluster.nodes.every((n) => n.labels["sabakan.cke.cybozu.com/datacenter"] === "dc2"));
        });
        it(`${workerSelection}: a step that applies (a worker's machine RETIRING) renders every node's labels afresh`, () => {
          const worker = workerAddresses(first)[0] as string;
          const machines = relabelled.map((m) => (m.ipv4[0] === worker ? { ...m, state: "RETIRING" as const } : m));
          const d = generated(decide({ current: first, machines, policy }, LATER));
          assert.ok(d.cluster.nodes.every((n) => n.labels["sabakan.cke.cybozu.com/datacenter"] === "dc2"));
        });
      }
    });

    const errors: Array<[string, Round, RegExp]> = [
      ["every control plane gone from the list", { current: BASE, machines: fleetWith(Object.fromEntries(CPS.map((a) => [a, null]))) }, /more than half/],
      ["two of three control planes gone from the list", { current: BASE, machines: fleetWith({ [at(CPS, 0)]: null, [at(CPS, 1)]: null }) }, /more than half/],
    ];
    for (const [name, round, detail] of errors) {
      it(`fails and keeps the configuration in force on a maintenance error: ${name}`, () => {
        const d = failed(decide(round, LATER));
        assert.ok(d.error.startsWith("cannot update the cluster: "), d.error);
        assert.match(d.error, detail);
      });
    }

    it("fails with cannot update when maintenance cannot fill the control planes", () => {
      const d = failed(decide({ current: BASE, constraints: sized(11, 0) }, LATER));
      assert.ok(d.error.startsWith("cannot update the cluster: not enough healthy machines"), d.error);
    });
  });
});

describe("decideGeneration by policy", () => {
  const five = fleet(5, 5);
  const cases: Array<{ name: string; policy: GenerationInput["policy"]; current: GeneratedCluster | null; want: [number, number] | "unchanged" }> = [
    { name: "no policy: weighted, 1 control plane and minimum-workers 1", policy: undefined, current: null, want: [1, 1] },
    { name: "weighted", policy: { workerSelection: "weighted", spareNodeTaintKey: null }, current: null, want: [1, 1] },
    {
      name: "all_healthy: 1 control plane and every other healthy machine a worker",
      policy: { workerSelection: "all_healthy", spareNodeTaintKey: null },
      current: null,
      want: [1, 4],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = generated(
        decideGeneration({ ...input({ machines: five, constraints: sized(1, 1) }), current: c.current, ...(c.policy && { policy: c.policy }) }, NOW),
      );
      assert.deepEqual([cpAddresses(d.cluster).length, workerAddresses(d.cluster).length], c.want);
    });
  }

  it("a weighted configuration maintained under all_healthy gains the other healthy machines as workers, and then stays", () => {
    const weighted = generated(decide({ machines: five, constraints: sized(1, 1) })).cluster;
    const policy = { workerSelection: "all_healthy" as const, spareNodeTaintKey: null };
    const next = generated(decideGeneration({ ...input({ machines: five, constraints: sized(1, 1), current: weighted }), policy }, LATER));
    assert.equal(workerAddresses(next.cluster).length, 4);
    assert.deepEqual(decideGeneration({ ...input({ machines: five, constraints: sized(1, 1), current: next.cluster }), policy }, LATER), UNCHANGED);
  });
});
