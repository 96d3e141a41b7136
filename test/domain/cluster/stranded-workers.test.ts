import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generate } from "../../../src/domain/cluster/generate.js";
import { describeStrandedWorkers, strandedWorkers, takesRole, type StrandedWorker } from "../../../src/domain/cluster/stranded-workers.js";
import type { GeneratedCluster, GenerationResult } from "../../../src/domain/cluster/types.js";
import { update } from "../../../src/domain/cluster/update.js";
import { MINIMAL, NOW, WEIGHTED, constraints, fleet, template } from "./support.js";

function ok(r: GenerationResult): GeneratedCluster {
  if (!r.ok) throw new Error(r.error);
  return r.cluster;
}
const ROLES = ["cs", "ss", "gpu"];
const MACHINES = fleet(30, 5, (i) => ({ role: ROLES[i % 3] as string }));
/** 3 control planes (cs) and 10 workers by 6:3:1: cs, ss and gpu workers. */
const CURRENT = ok(generate(WEIGHTED, MACHINES, constraints(3, 10), NOW));
const workersOf = (role: string) =>
  CURRENT.nodes
    .filter((n) => !n.control_plane && n.labels["cke.cybozu.com/role"] === role)
    .map((n) => n.address)
    .sort();
/** WEIGHTED with the gpu worker template's role renamed (a typo in an edit, say). */
const WITHOUT_GPU = template(`
name: cluster
nodes:
- {user: cybozu, control_plane: true, labels: {cke.cybozu.com/role: cs}}
- {user: cybozu, labels: {cke.cybozu.com/role: cs, cke.cybozu.com/weight: "6.0"}}
- {user: cybozu, labels: {cke.cybozu.com/role: ss, cke.cybozu.com/weight: "3.0"}}
- {user: cybozu, labels: {cke.cybozu.com/role: gpux, cke.cybozu.com/weight: "1.0"}}
service_subnet: 10.68.0.0/16
`);

describe("takesRole", () => {
  const cases: Array<[string, Parameters<typeof takesRole>[0], string, boolean]> = [
    ["the only worker template takes any role", MINIMAL, "gpu", true],
    ["a role with its worker template", WEIGHTED, "ss", true],
    ["a role without one, among several", WEIGHTED, "boot", false],
    ["the control plane template's role does not count", WITHOUT_GPU, "gpu", false],
  ];
  for (const [name, tmpl, role, want] of cases) it(name, () => assert.equal(takesRole(tmpl, role), want));
});

describe("strandedWorkers", () => {
  it("is empty before the first configuration", () => assert.deepEqual(strandedWorkers(WITHOUT_GPU, null), []));
  it("is empty when every worker's role keeps a template", () => assert.deepEqual(strandedWorkers(WEIGHTED, CURRENT), []));
  it("is empty for a template with a single worker template", () => assert.deepEqual(strandedWorkers(MINIMAL, CURRENT), []));
  it("names the workers of a role the new template drops, and no control plane", () => {
    const stranded = strandedWorkers(WITHOUT_GPU, CURRENT);
    assert.ok(workersOf("gpu").length > 0);
    assert.deepEqual(stranded.map((w) => w.address).sort(), workersOf("gpu"));
    assert.ok(stranded.every((w) => w.role === "gpu"));
  });
});

describe("describeStrandedWorkers", () => {
  const w = (address: string, role: string): StrandedWorker => ({ address, role });
  const cases: Array<[string, StrandedWorker[], RegExp]> = [
    ["one worker", [w("10.0.0.1", "gpu")], /^1 worker has a role no node template takes \(role "gpu": 10\.0\.0\.1\); /],
    [
      "grouped by role, sorted",
      [w("10.0.0.3", "ss"), w("10.0.0.2", "gpu"), w("10.0.0.1", "ss")],
      /^3 workers have a role no node template takes \(role "gpu": 10\.0\.0\.2; role "ss": 10\.0\.0\.1, 10\.0\.0\.3\); /,
    ],
    ["at most ten addresses, then a count", Array.from({ length: 12 }, (_, i) => w(`10.0.0.${i + 10}`, "gpu")), /\(role "gpu": (10\.0\.0\.\d+, ){10}2 more\)/],
    [
      "says what to do instead",
      [w("10.0.0.1", "gpu")],
      /add a node template for the role, or first leave those machines out with the cluster variables \(kintsugi sabakan set-variables\)/,
    ],
  ];
  for (const [name, stranded, want] of cases) it(name, () => assert.match(describeStrandedWorkers(stranded), want));
});

describe("maintenance never drops workers because no template takes their role", () => {
  const cases: Array<[string, Parameters<typeof update>[1]["template"], typeof MACHINES, string[]]> = [
    ["the template lost a role", WITHOUT_GPU, MACHINES, workersOf("gpu")],
    [
      "sabakan changed a worker's role to one without a template",
      WEIGHTED,
      MACHINES.map((m) => (m.ipv4[0] === workersOf("ss")[0] ? { ...m, role: "boot" } : m)),
      workersOf("ss").slice(0, 1),
    ],
  ];
  for (const [name, tmpl, machines, addresses] of cases) {
    it(`fails the round, naming them: ${name}`, () => {
      const r = update(CURRENT, {
        template: tmpl,
        machines,
        nodeTaints: new Map(),
        constraints: constraints(3, 10),
        now: NOW + 60_000,
        rebootingNodes: new Set(),
      });
      assert.ok(!r.ok, "the round must fail");
      assert.match(r.error, /^refusing to remove workers: \d+ workers? (has|have) a role no node template takes /);
      for (const a of addresses) assert.ok(r.error.includes(a), r.error);
    });
  }
});
