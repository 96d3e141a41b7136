import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generate } from "../../../src/domain/cluster/generate.js";
import { countByRack, pickHighest } from "../../../src/domain/cluster/score.js";
import type { GenerationResult } from "../../../src/domain/cluster/types.js";
import { DAY, MINIMAL, NOW, WEIGHTED, constraints, fleet, machine, template } from "./support.js";

function ok(r: GenerationResult) {
  if (!r.ok) throw new Error(r.error);
  return r;
}
const cps = (r: GenerationResult) => ok(r).cluster.nodes.filter((n) => n.control_plane);
const workers = (r: GenerationResult) => ok(r).cluster.nodes.filter((n) => !n.control_plane);
const serials = (nodes: ReturnType<typeof cps>) => nodes.map((n) => n.annotations["cke.cybozu.com/serial"]);

describe("generate (initialization)", () => {
  it("selects control-plane-count control planes, then minimum-workers workers, and says why", () => {
    const r = ok(generate(MINIMAL, fleet(6, 3), constraints(3, 2), NOW));
    assert.equal(cps(r).length, 3);
    assert.equal(workers(r).length, 2);
    assert.equal(r.changes.length, 5);
    assert.equal(r.changes[0], "add control plane 10.0.0.1 (serial m000): control-plane-count is 3, the cluster has 0; rack 0 has none");
    assert.match(
      r.changes[3] ?? "",
      /^add worker 10\.0\.0\.4 \(serial m003, any role\): minimum-workers is 2, the cluster has 0; rack 0 has none of any role$/,
    );
  });

  const hostile: Array<[string, string]> = [
    ["an option", "-rf"],
    ["control characters", "10.0.0.9\u001b[2J"],
    ["empty", ""],
  ];
  for (const [name, ipv4] of hostile) {
    it(`never makes a node of a machine whose first IPv4 is not an IP address: ${name}`, () => {
      // Two nodes are needed and only one machine has an address: the hostile one must not make up the second.
      const r = generate(MINIMAL, [machine("m9", { ipv4: [ipv4] }), machine("m1")], constraints(1, 1), NOW);
      assert.equal(r.ok, false, JSON.stringify(r));
      assert.match(r.ok ? "" : r.error, /^not enough healthy machines/);
    });
  }

  it("writes an IPv4-mapped IPv6 first address as its IPv4 address, one machine with the plain spelling", () => {
    const machines = [machine("m1", { ipv4: ["::ffff:10.0.0.7"] }), machine("m2", { ipv4: ["10.0.0.7"] }), machine("m3")];
    const r = ok(generate(MINIMAL, machines, constraints(1, 1), NOW));
    assert.deepEqual(r.cluster.nodes.map((n) => [n.address, n.annotations["cke.cybozu.com/serial"]]).sort(), [
      ["10.0.0.4", "m3"],
      ["10.0.0.7", "m1"],
    ]);
  });

  it("spreads control planes over racks", () => {
    const r = generate(MINIMAL, fleet(9, 3), constraints(3, 0), NOW);
    assert.deepEqual(
      cps(r)
        .map((n) => n.labels["cke.cybozu.com/rack"])
        .sort(),
      ["0", "1", "2"],
    );
  });

  it("prefers newer machines within the spread", () => {
    const machines = fleet(4, 2, (i) => ({ retireDate: NOW + (i < 2 ? 100 : 1500) * DAY }));
    assert.deepEqual(serials(cps(generate(MINIMAL, machines, constraints(2, 0), NOW))), ["m002", "m003"]);
  });

  it("respects the control plane template's role", () => {
    const machines = fleet(6, 3, (i) => ({ role: i < 3 ? "ss" : "cs" }));
    assert.ok(cps(generate(WEIGHTED, machines, constraints(3, 0), NOW)).every((n) => n.labels["cke.cybozu.com/role"] === "cs"));
  });

  it("respects weights 6:3:1", () => {
    const machines = fleet(60, 5, (i) => ({ role: ["cs", "ss", "gpu"][i % 3] as string }));
    const r = generate(WEIGHTED, machines, constraints(1, 20), NOW);
    const byRole = new Map<string, number>();
    for (const n of workers(r)) byRole.set(n.labels["cke.cybozu.com/role"] as string, (byRole.get(n.labels["cke.cybozu.com/role"] as string) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(byRole), { cs: 12, ss: 6, gpu: 2 });
  });

  it("picks workers in the same order as a plain scan by score (ties by serial)", () => {
    const machines = fleet(90, 7, (i) => ({ retireDate: NOW + (((i * 37) % 2600) - 1300) * DAY, state: i % 11 === 3 ? "UNHEALTHY" : "HEALTHY" }));
    const r = ok(generate(MINIMAL, machines, constraints(1, 60), NOW));
    const chosen: typeof machines = [];
    const cp = machines.find((m) => m.ipv4[0] === cps(r)[0]?.address);
    for (let i = 0; i < 60; i++) {
      const pool = machines.filter((m) => m.state === "HEALTHY" && m !== cp && !chosen.includes(m));
      chosen.push(pickHighest(pool, countByRack(chosen), NOW) as (typeof machines)[number]);
    }
    assert.deepEqual(
      serials(workers(r)),
      chosen.map((m) => m.serial),
    );
  });

  it("spreads the workers of one role evenly over racks", () => {
    const r = generate(MINIMAL, fleet(40, 4), constraints(1, 8), NOW);
    const racks = workers(r).map((n) => n.labels["cke.cybozu.com/rack"]);
    for (const rack of ["0", "1", "2", "3"]) assert.equal(racks.filter((x) => x === rack).length, 2, `rack ${rack}`);
  });

  const failures: Array<{ name: string; machines: ReturnType<typeof fleet>; want: RegExp }> = [
    {
      name: "too few machines for the control planes",
      machines: fleet(2, 2),
      want: /^not enough healthy machines: control-plane-count is 3, the cluster has 2 /,
    },
    { name: "too few machines for the workers", machines: fleet(4, 2), want: /^not enough healthy machines: minimum-workers is 2, the cluster has 1 / },
    {
      name: "unhealthy machines do not count",
      machines: fleet(6, 3, (i) => ({ state: i < 2 ? "HEALTHY" : "UNHEALTHY" })),
      want: /^not enough healthy machines/,
    },
    { name: "machines without an IPv4 address are ignored", machines: fleet(6, 3, (i) => (i > 1 ? { ipv4: [] } : {})), want: /^not enough healthy machines/ },
  ];
  for (const c of failures) {
    it(`fails: ${c.name}`, () => {
      const r = generate(MINIMAL, c.machines, constraints(3, 2), NOW);
      assert.ok(!r.ok);
      assert.match(r.error, c.want);
    });
  }

  it("is deterministic: the order of the machines does not matter", () => {
    const machines = fleet(30, 5, (i) => ({ role: ["cs", "ss", "gpu"][i % 3] as string }));
    const a = generate(WEIGHTED, machines, constraints(3, 10), NOW);
    const b = generate(WEIGHTED, [...machines].reverse(), constraints(3, 10), NOW);
    assert.deepEqual(a, b);
  });

  it("renders labels, annotations and taints exactly for one node", () => {
    const tmpl = template(`
name: c
service_subnet: 10.68.0.0/16
options: {kubelet: {cgroup_driver: systemd}}
nodes:
- user: cybozu
  control_plane: true
  labels: {team: infra}
  annotations: {note: cp}
  taints: [{key: dedicated, value: cp, effect: NoSchedule}]
- user: cybozu
`);
    const m = machine("s7", {
      rack: 3,
      indexInRack: 5,
      role: "cs",
      registerDate: Date.UTC(2023, 1, 3, 4, 5, 6, 789),
      retireDate: Date.UTC(2029, 10, 30),
      labels: { product: "x" },
    });
    const r = ok(generate(tmpl, [m, machine("s8", { rack: 1 })], constraints(1, 1), NOW));
    assert.deepEqual(r.cluster.extra, { options: { kubelet: { cgroup_driver: "systemd" } } });
    assert.deepEqual(r.cluster.nodes[0], {
      address: "10.0.3.8",
      user: "cybozu",
      control_plane: true,
      labels: {
        "sabakan.cke.cybozu.com/product": "x",
        team: "infra",
        "cke.cybozu.com/rack": "3",
        "cke.cybozu.com/index-in-rack": "5",
        "cke.cybozu.com/role": "cs",
        "cke.cybozu.com/register-month": "2023-02",
        "cke.cybozu.com/retire-month": "2029-11",
        "node-role.kubernetes.io/cs": "true",
        "topology.kubernetes.io/zone": "rack3",
        "failure-domain.beta.kubernetes.io/zone": "rack3",
        "node-role.kubernetes.io/master": "true",
        "node-role.kubernetes.io/control-plane": "true",
      },
      annotations: {
        note: "cp",
        "cke.cybozu.com/serial": "s7",
        "cke.cybozu.com/register-date": "2023-02-03T04:05:06Z",
        "cke.cybozu.com/retire-date": "2029-11-30T00:00:00Z",
      },
      taints: [{ key: "dedicated", value: "cp", effect: "NoSchedule" }],
    });
  });
});
