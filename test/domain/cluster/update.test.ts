import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generate } from "../../../src/domain/cluster/generate.js";
import type { ClusterConstraints, ClusterMachine, ClusterTemplate, GeneratedCluster, GenerationResult, Taint } from "../../../src/domain/cluster/types.js";
import { update } from "../../../src/domain/cluster/update.js";
import { MINIMAL, NOW, constraints, fleet, template } from "./support.js";

function ok(r: GenerationResult) {
  if (!r.ok) throw new Error(r.error);
  return r;
}
const LATER = NOW + 60_000;
const FLEET = fleet(10, 5);
/** 3 control planes (racks 0, 1, 2) and 3 workers out of 10 machines in 5 racks. */
const BASE = ok(generate(MINIMAL, FLEET, constraints(3, 3), NOW)).cluster;
const serialOf = (address: string) => BASE.nodes.find((n) => n.address === address)?.annotations["cke.cybozu.com/serial"];
const cpAddresses = (c: GeneratedCluster) => c.nodes.filter((n) => n.control_plane).map((n) => n.address);
const workerAddresses = (c: GeneratedCluster) => c.nodes.filter((n) => !n.control_plane).map((n) => n.address);
const CPS = cpAddresses(BASE);
const WORKERS = workerAddresses(BASE);
const UNUSED = FLEET.filter((m) => !BASE.nodes.some((n) => n.address === m.ipv4[0]));

interface Run {
  machines?: ClusterMachine[];
  taints?: Record<string, Taint[]>;
  constraints?: ClusterConstraints;
  template?: ClusterTemplate;
  current?: GeneratedCluster;
  rebooting?: string[];
  now?: number;
}
function run(r: Run = {}): GenerationResult {
  const taints = new Map(Object.entries(r.taints ?? {}));
  return update(r.current ?? BASE, {
    template: r.template ?? MINIMAL,
    machines: r.machines ?? FLEET,
    nodeTaints: taints,
    constraints: r.constraints ?? constraints(3, 3),
    now: r.now ?? LATER,
    rebootingNodes: new Set(r.rebooting ?? []),
  });
}
/** The fleet with the machines at `addresses` changed (or dropped with `null`). */
function fleetWith(changes: Record<string, Partial<ClusterMachine> | null>, machines = FLEET): ClusterMachine[] {
  return machines.flatMap((m) => {
    const c = changes[m.ipv4[0] as string];
    return c === null ? [] : [{ ...m, ...c }];
  });
}
const at = <T>(xs: readonly T[], i: number): T => xs[i] as T;

describe("update (maintenance)", () => {
  it("no change when nothing changed: the same cluster and zero changes", () => {
    const r = ok(run());
    assert.deepEqual(r.changes, []);
    assert.deepEqual(r.cluster, BASE);
  });

  it("is deterministic: the order of the machines does not matter", () => {
    const machines = fleetWith({ [at(CPS, 0)]: { state: "UNHEALTHY" } });
    assert.deepEqual(run({ machines }), run({ machines: [...machines].reverse() }));
  });

  describe("remove non-existent nodes", () => {
    it("removes a worker sabakan no longer lists and adds a new one", () => {
      const r = ok(run({ machines: fleetWith({ [at(WORKERS, 0)]: null }) }));
      assert.equal(r.changes[0], `remove worker ${at(WORKERS, 0)}: no longer in sabakan's list`);
      assert.match(r.changes[1] ?? "", /^add worker .*: minimum-workers is 3, the cluster has 2; /);
      assert.equal(workerAddresses(r.cluster).length, 3);
      assert.ok(!workerAddresses(r.cluster).includes(at(WORKERS, 0)));
    });

    it("removes one missing control plane of three and adds one in a rack without a control plane", () => {
      const r = ok(run({ machines: fleetWith({ [at(CPS, 0)]: null }) }));
      assert.equal(r.changes[0], `remove control plane ${at(CPS, 0)}: no longer in sabakan's list`);
      assert.match(r.changes[1] ?? "", /^add control plane .*: control-plane-count is 3, the cluster has 2; rack \d has none$/);
      assert.equal(new Set(r.cluster.nodes.filter((n) => n.control_plane).map((n) => n.labels["cke.cybozu.com/rack"])).size, 3);
    });

    const refusals: Array<[string, string[], GeneratedCluster]> = [
      ["two of three control planes", [at(CPS, 0), at(CPS, 1)], BASE],
      ["one of two control planes (no quorum left either)", [at(CPS, 0)], { ...BASE, nodes: BASE.nodes.filter((n) => n.address !== at(CPS, 2)) }],
    ];
    for (const [name, missing, current] of refusals) {
      it(`refuses to replace more than half of the control planes: ${name}`, () => {
        const r = run({ current, machines: fleetWith(Object.fromEntries(missing.map((a) => [a, null]))) });
        assert.ok(!r.ok);
        assert.match(
          r.error,
          /^refusing to remove \d of \d control planes no longer in sabakan's list .*: replacing more than half of the control planes at once would break etcd's quorum/,
        );
      });
    }
  });

  describe("increase control plane nodes", () => {
    it("adds control planes when control-plane-count goes up", () => {
      const r = ok(run({ constraints: constraints(5, 3) }));
      assert.equal(cpAddresses(r.cluster).length, 5);
      assert.ok(r.changes.every((c) => c.startsWith("add control plane ")));
      assert.equal(r.changes.length, 2);
    });

    it("promotes a worker when no unused machine is left and workers exceed minimum-workers", () => {
      const r = ok(run({ machines: fleetWith(Object.fromEntries(UNUSED.map((m) => [m.ipv4[0] as string, null]))), constraints: constraints(4, 2) }));
      assert.match(
        at(r.changes, 0),
        /^promote worker \S+ \(serial m\d+\) to control plane: control-plane-count is 4, the cluster has 3 and no unused healthy machine is left/,
      );
      assert.equal(cpAddresses(r.cluster).length, 4);
      assert.equal(workerAddresses(r.cluster).length, 2);
    });

    it("fails with not enough healthy machines when neither is possible, leaving the cluster to the caller", () => {
      const r = run({ machines: fleetWith(Object.fromEntries(UNUSED.map((m) => [m.ipv4[0] as string, null]))), constraints: constraints(4, 3) });
      assert.ok(!r.ok);
      assert.match(r.error, /^not enough healthy machines: control-plane-count is 4, the cluster has 3/);
    });
  });

  describe("decrease control plane nodes", () => {
    it("changes the lowest-scored control planes to workers", () => {
      const machines = fleetWith({ [at(CPS, 1)]: { state: "UPDATING" } });
      const r = ok(run({ machines, constraints: constraints(1, 3) }));
      assert.match(
        at(r.changes, 0),
        new RegExp(
          `^change control plane ${at(CPS, 1).replace(/\./g, "\\.")} \\(serial m\\d+\\) to worker: control-plane-count is 1, the cluster has 3; lowest removal score \\(UPDATING, `,
        ),
      );
      assert.equal(cpAddresses(r.cluster).length, 1);
      assert.equal(workerAddresses(r.cluster).length, 5);
    });

    it("removes the control planes it cannot demote at maximum-workers", () => {
      const r = ok(run({ constraints: constraints(1, 3, 4) }));
      assert.equal(cpAddresses(r.cluster).length, 1);
      assert.equal(workerAddresses(r.cluster).length, 4);
      assert.equal(r.changes.filter((c) => c.startsWith("change control plane ")).length, 1);
      assert.match(
        r.changes.find((c) => c.startsWith("remove control plane ")) ?? "",
        /: control-plane-count is 1, the cluster has 2; lowest removal score .*; maximum-workers is 4$/,
      );
    });

    it("removes workers beyond maximum-workers", () => {
      const current = ok(generate(MINIMAL, FLEET, constraints(3, 5), NOW)).cluster;
      const r = ok(run({ current, constraints: constraints(1, 2, 4) }));
      assert.equal(cpAddresses(r.cluster).length, 1);
      assert.equal(workerAddresses(r.cluster).length, 4);
      assert.equal(r.changes.filter((c) => /^remove worker .*: maximum-workers is 4, the cluster has 5; lowest removal score/.test(c)).length, 1);
    });
  });

  describe("replace control nodes", () => {
    it("demotes an unhealthy control plane and adds a new one", () => {
      const r = ok(run({ machines: fleetWith({ [at(CPS, 1)]: { state: "UNHEALTHY" } }) }));
      assert.match(
        at(r.changes, 0),
        /^change control plane \S+ \(serial m\d+\) to worker: replace control plane: machine is UNHEALTHY for 3660 s \(> 1800 s\)$/,
      );
      assert.match(at(r.changes, 1), /^add control plane /);
      assert.ok(workerAddresses(r.cluster).includes(at(CPS, 1)));
      assert.equal(cpAddresses(r.cluster).length, 3);
    });

    it("replaces a control plane with an intolerable Kubernetes taint", () => {
      const r = ok(run({ taints: { [at(CPS, 0)]: [{ key: "example.com/broken", effect: "NoSchedule" }] } }));
      assert.match(at(r.changes, 0), /intolerable taint \(example\.com\/broken\)$/);
    });

    const tolerated: Array<[string, string]> = [
      ["a transitional Kubernetes taint", "node.kubernetes.io/not-ready"],
      ["CKE's state taint", "cke.cybozu.com/state"],
      ["CKE's master taint", "cke.cybozu.com/master"],
      ["a taint the template tolerates", "example.com/ok"],
    ];
    for (const [name, key] of tolerated) {
      it(`keeps a control plane with ${name}`, () => {
        const tmpl = { ...MINIMAL, control_plane_tolerations: ["example.com/ok"] };
        const current = { ...BASE, control_plane_tolerations: ["example.com/ok"] };
        assert.deepEqual(ok(run({ current, template: tmpl, taints: { [at(CPS, 0)]: [{ key, effect: "NoSchedule" }] } })).changes, []);
      });
    }

    it("promotes a healthy worker when no unused machine is left", () => {
      const sick = fleetWith({
        [at(CPS, 1)]: { state: "UNHEALTHY" },
        ...Object.fromEntries(UNUSED.map((m) => [m.ipv4[0] as string, { state: "UNREACHABLE" as const }])),
      });
      const r = ok(run({ machines: sick }));
      assert.match(
        at(r.changes, 0),
        /^change control plane \S+ \(serial m\d+\) to worker: replace control plane: machine is UNHEALTHY for 3660 s \(> 1800 s\)$/,
      );
      assert.match(
        at(r.changes, 1),
        /^promote worker \S+ \(serial m\d+\) to control plane: control-plane-count is 3, the cluster has 2 and no unused healthy machine is left/,
      );
      assert.equal(r.changes.length, 2);
    });

    it("keeps a bad control plane when nothing can replace it, and goes on with the other steps", () => {
      const notCps = FLEET.filter((m) => !CPS.includes(m.ipv4[0] as string));
      const sick = fleetWith({
        [at(CPS, 1)]: { state: "UNHEALTHY" },
        ...Object.fromEntries(notCps.map((m) => [m.ipv4[0] as string, { state: "UNREACHABLE" as const }])),
      });
      const r = ok(run({ machines: sick }));
      assert.deepEqual(cpAddresses(r.cluster), CPS);
      assert.deepEqual(r.changes, []);
    });

    it("does not replace a single control plane", () => {
      const current = ok(generate(MINIMAL, FLEET, constraints(1, 3), NOW)).cluster;
      const address = at(cpAddresses(current), 0);
      assert.deepEqual(ok(run({ current, machines: fleetWith({ [address]: { state: "UNHEALTHY" } }), constraints: constraints(1, 3) })).changes, []);
    });
  });

  describe("increase worker nodes", () => {
    it("adds a worker when healthy workers fall below minimum-workers", () => {
      const r = ok(run({ machines: fleetWith({ [at(WORKERS, 0)]: { state: "UNHEALTHY" } }) }));
      assert.match(at(r.changes, 0), /^add worker \S+ \(serial m\d+, any role\): 2 healthy workers, minimum-workers is 3; /);
      assert.equal(workerAddresses(r.cluster).length, 4);
    });

    it("adds none at maximum-workers", () => {
      const r = ok(run({ machines: fleetWith({ [at(WORKERS, 0)]: { state: "UNHEALTHY" } }), constraints: constraints(3, 3, 3) }));
      assert.deepEqual(r.changes, []);
    });
  });

  describe("decrease worker nodes (retired for a while)", () => {
    const retired = (duration: number) => fleetWith({ [at(WORKERS, 0)]: { state: "RETIRED", durationSeconds: duration } });
    const cases: Array<{ name: string; duration: number; limits: ClusterConstraints; drop?: boolean; want: RegExp[] }> = [
      {
        name: "299 s: only tainted",
        duration: 299,
        limits: constraints(3, 2),
        want: [/^taint node \S+ with cke\.cybozu\.com\/state=retired:NoExecute: machine is RETIRED$/],
      },
      {
        name: "300 s with more workers than minimum-workers: removed",
        duration: 300,
        limits: constraints(3, 2),
        want: [/^remove retired worker \S+ \(serial m\d+\): RETIRED for 300 s \(>= 300 s\); 2 workers remain, minimum-workers is 2$/],
      },
      {
        name: "at minimum-workers (and maximum): replaced with a new machine",
        duration: 3600,
        limits: constraints(3, 3, 3),
        want: [/^remove retired worker .*: RETIRED for 3600 s \(>= 300 s\); a new machine replaces it$/, /^add worker /],
      },
      {
        name: "at minimum-workers without a spare machine: left untouched (tainted)",
        duration: 3600,
        limits: constraints(3, 3),
        drop: true,
        want: [/^taint node .*=retired:NoExecute/],
      },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const machines = c.drop ? fleetWith(Object.fromEntries(UNUSED.map((m) => [m.ipv4[0] as string, null])), retired(c.duration)) : retired(c.duration);
        const r = ok(run({ machines, constraints: c.limits }));
        assert.equal(r.changes.length, c.want.length, JSON.stringify(r.changes));
        c.want.forEach((re, i) => assert.match(at(r.changes, i), re));
      });
    }
  });

  describe("taints, labels, annotations", () => {
    it("taints a retiring worker NoExecute, exactly", () => {
      const r = ok(run({ machines: fleetWith({ [at(WORKERS, 1)]: { state: "RETIRING" } }), constraints: constraints(3, 2) }));
      assert.deepEqual(r.changes, [`taint node ${at(WORKERS, 1)} with cke.cybozu.com/state=retiring:NoExecute: machine is RETIRING`]);
      assert.deepEqual(r.cluster.nodes.find((n) => n.address === at(WORKERS, 1))?.taints, [
        { key: "cke.cybozu.com/state", value: "retiring", effect: "NoExecute" },
      ]);
    });

    it("removes the taint when the machine is healthy again, and no taint for rebooting (UNREACHABLE) machines", () => {
      const tainted = ok(run({ machines: fleetWith({ [at(WORKERS, 1)]: { state: "RETIRING" } }), constraints: constraints(3, 2) })).cluster;
      const r = ok(run({ current: tainted, machines: fleetWith({ [at(WORKERS, 1)]: { state: "UNREACHABLE" } }), constraints: constraints(3, 2) }));
      assert.deepEqual(r.changes, [`remove taint cke.cybozu.com/state from node ${at(WORKERS, 1)}: machine is UNREACHABLE`]);
    });

    it("follows sabakan label changes", () => {
      const r = ok(run({ machines: fleetWith({ [at(WORKERS, 2)]: { labels: { datacenter: "dc2" } } }) }));
      assert.deepEqual(r.changes, [`update labels of node ${at(WORKERS, 2)}: sabakan.cke.cybozu.com/datacenter`]);
      assert.equal(serialOf(at(WORKERS, 2)), r.cluster.nodes.find((n) => n.address === at(WORKERS, 2))?.annotations["cke.cybozu.com/serial"]);
    });

    it("regenerates from an updated template", () => {
      const tmpl = template(`
name: cluster
service_subnet: 10.69.0.0/16
nodes:
- {user: cybozu, control_plane: true}
- {user: cybozu, labels: {team: web}}
`);
      const r = ok(run({ template: tmpl }));
      assert.equal(r.changes[0], "update cluster-wide settings from the template: service_subnet");
      assert.deepEqual(
        r.changes.slice(1),
        WORKERS.map((a) => `update labels of node ${a}: team`),
      );
      assert.equal(r.cluster.service_subnet, "10.69.0.0/16");
    });
  });
});
