import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { judgeAdoption, type AdoptionInput, type AdoptionResult } from "../../../src/domain/cluster/adoption.js";
import { decideGeneration } from "../../../src/domain/cluster/generation-decision.js";
import { parseTemplate } from "../../../src/domain/cluster/template.js";
import type { ClusterMachine, ClusterTemplate, NodeTemplate } from "../../../src/domain/cluster/types.js";
import type { WorkerSelection } from "../../../src/domain/cluster/worker-selection.js";
import { CKE_CLUSTER, CKE_TEMPLATE, ckeMachines } from "../../support/cke-fixtures.js";
import { NOW } from "./support.js";

const parsed = parseTemplate(CKE_TEMPLATE);
if (!parsed.ok) throw new Error(parsed.errors.join("; "));
const TEMPLATE: ClusterTemplate = parsed.template;
const MACHINES = ckeMachines(NOW);

interface Case {
  machines?: readonly ClusterMachine[];
  template?: ClusterTemplate;
  controlPlaneCount?: number;
  workerSelection?: WorkerSelection;
  text?: string;
}
const input = (c: Case): AdoptionInput => ({
  template: c.template ?? TEMPLATE,
  machines: c.machines ?? MACHINES,
  nodeTaints: new Map(),
  rebootingNodes: new Set(),
  constraints: {
    controlPlaneCount: c.controlPlaneCount ?? 3,
    minimumWorkers: 1,
    maximumWorkers: 0,
    waitSecondsToReplaceControlPlane: 1800,
    minimumWorkersRate: 80,
  },
  policy: { workerSelection: c.workerSelection ?? "weighted", spareNodeTaintKey: null },
});
const judge = (c: Case = {}): AdoptionResult => judgeAdoption(c.text ?? CKE_CLUSTER, input(c), NOW);
const adopted = (r: AdoptionResult) => {
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.adoption;
};
const without = (serial: string) => MACHINES.filter((m) => m.serial !== serial);
const changed = (serial: string, over: Partial<ClusterMachine>) => MACHINES.map((m) => (m.serial === serial ? { ...m, ...over } : m));

describe("judgeAdoption: the cluster CKE runs becomes the configuration in force", () => {
  it("keeps CKE's control planes, which are not the lowest serials, and suggests all_healthy", () => {
    const a = adopted(judge());
    assert.deepEqual(
      a.cluster.nodes.filter((n) => n.control_plane).map((n) => a.cluster.nodes.indexOf(n) >= 0 && n.annotations["cke.cybozu.com/serial"]),
      ["1003", "1006", "1009"],
    );
    assert.equal(a.suggested, "all_healthy");
    assert.match(
      a.suggestion,
      /^worker_selection: all_healthy reproduces this cluster: the next round changes nothing; the config has weighted: set sabakan.worker_selection: all_healthy/,
    );
    assert.deepEqual(
      a.nextRounds.map((r) => [r.workerSelection, r.outcome]),
      [
        ["weighted", "unchanged"],
        ["all_healthy", "unchanged"],
      ],
    );
    assert.equal(a.changes[0], "adopt the cluster configuration CKE runs: 10 nodes, control planes 10.0.0.3, 10.0.1.3, 10.0.2.3");
  });

  it("where a fresh generation would choose other control planes (the reason to adopt)", () => {
    const fresh = decideGeneration({ ...input({}), current: null, policy: { workerSelection: "all_healthy", spareNodeTaintKey: null } }, NOW);
    assert.equal(fresh.kind, "generated");
    if (fresh.kind !== "generated") return;
    const cps = fresh.cluster.nodes.filter((n) => n.control_plane).map((n) => n.address);
    assert.notDeepEqual(cps.sort(), ["10.0.0.3", "10.0.1.3", "10.0.2.3"]);
  });

  it("says when the config already has the selection that reproduces it", () => {
    assert.match(adopted(judge({ workerSelection: "all_healthy" })).suggestion, /; the config has it$/);
  });

  it("suggests weighted when a healthy machine is not a node (all_healthy would add it)", () => {
    const extra: ClusterMachine = { ...(MACHINES[0] as ClusterMachine), serial: "3001", ipv4: ["10.0.3.1"], rack: 3, indexInRack: 1 };
    const a = adopted(judge({ machines: [...MACHINES, extra] }));
    assert.equal(a.suggested, "weighted");
    const allHealthy = a.nextRounds.find((r) => r.workerSelection === "all_healthy");
    assert.equal(allHealthy?.outcome, "generated");
    assert.ok(allHealthy?.details.some((d) => d.startsWith("add worker 10.0.3.1 ")));
  });

  it("says when neither selection reproduces it", () => {
    // A control plane's machine RETIRED (for an hour): both would change the cluster.
    const a = adopted(judge({ machines: changed("1009", { state: "RETIRED" }) }));
    assert.ok(a.nextRounds.every((r) => r.outcome !== "unchanged"));
    assert.match(a.suggestion, /^neither worker selection reproduces this cluster exactly; /);
  });

  const refusals: Array<[string, Case, RegExp]> = [
    ["not a cluster configuration", { text: "nodes: [" }, /neither YAML nor JSON/],
    [
      "a cluster with no control plane",
      { text: CKE_CLUSTER.replaceAll("control_plane: true", "control_plane: false") },
      /^the cluster configuration has no control plane$/,
    ],
    [
      "control-plane-count not carried over",
      { controlPlaneCount: 1 },
      /^the cluster configuration has 3 control planes and control-plane-count is 1: carry CKE's constraints over first \(kintsugi constraints set control-plane-count 3\)/,
    ],
    [
      "a node sabakan does not list",
      { machines: without("1004") },
      /^1 of 10 nodes are not machines sabakan lists with the cluster variables \(10.0.1.1\): the file does not match sabakan's machines/,
    ],
    ["a control plane sabakan does not list", { machines: without("1003") }, /\(10.0.0.3\): the file does not match sabakan's machines/],
    [
      "a node whose serial is another machine's",
      { machines: changed("1004", { serial: "9999" }) },
      /^1 nodes name another serial than sabakan's machine at their address: 10.0.1.1 \(file: 1004, sabakan: 9999\)/,
    ],
    [
      "a worker whose role no node template takes",
      {
        template: { ...TEMPLATE, nodes: [...TEMPLATE.nodes.slice(0, 2), { ...(TEMPLATE.nodes[2] as NodeTemplate), labels: { "cke.cybozu.com/role": "gpu" } }] },
      },
      /^1 worker has a role no node template takes \(role "ss": 10.0.2.4\)/,
    ],
  ];
  for (const [name, c, want] of refusals) {
    it(`refuses ${name}, naming it`, () => {
      const r = judge(c);
      assert.ok(!r.ok, "adopted");
      assert.ok(
        r.errors.some((e) => want.test(e)),
        r.errors.join("\n"),
      );
    });
  }
});
