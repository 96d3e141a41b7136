import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CONTROL_PLANE_LABEL, controlPlanesOf, type ControlPlane, type NodeFacts } from "../../../src/domain/queue/control-planes.js";
import { REBOOT_ANNOTATION } from "../../../src/domain/shared/node-reboot.js";

const CORDONED_BY = "kintsugi.test/cordoned-by";
const node = (name: string, ip: string, over: Partial<NodeFacts> = {}): NodeFacts => ({
  name,
  internalIPs: [ip],
  unschedulable: false,
  annotations: {},
  labels: { [CONTROL_PLANE_LABEL]: "" },
  conditions: [{ type: "Ready", status: "True" }],
  ...over,
});
const rebootingAnnotations = { [REBOOT_ANNOTATION]: "true" };

interface Case {
  readonly name: string;
  readonly nodes: readonly NodeFacts[];
  readonly generated?: readonly string[];
  readonly kubernetes?: boolean;
  readonly want: readonly ControlPlane[];
}

const plane = (name: string, addresses: string[], over: Partial<ControlPlane> = {}): ControlPlane => ({
  name,
  addresses,
  ready: true,
  rebooting: false,
  ...over,
});

const CASES: Case[] = [
  { name: "a Node with the control-plane label (any value) is a control plane", nodes: [node("cp1", "10.0.0.1")], want: [plane("cp1", ["10.0.0.1", "cp1"])] },
  {
    name: "a Node without the label and not generated as one is not",
    nodes: [node("w1", "10.0.0.1", { labels: { "node-role.kubernetes.io/master": "" } })],
    want: [],
  },
  {
    name: "a Node the generated configuration lists as a control plane is one",
    nodes: [node("n1", "10.0.0.1", { labels: {} })],
    generated: ["10.0.0.1"],
    want: [plane("n1", ["10.0.0.1", "n1"])],
  },
  {
    name: "a generated control plane without a Node is not Ready with Kubernetes",
    nodes: [],
    generated: ["10.0.0.9"],
    want: [plane("10.0.0.9", ["10.0.0.9"], { ready: false })],
  },
  {
    name: "without Kubernetes a generated control plane counts as Ready",
    nodes: [],
    generated: ["10.0.0.9"],
    kubernetes: false,
    want: [plane("10.0.0.9", ["10.0.0.9"])],
  },
  {
    name: "Ready condition False: not Ready",
    nodes: [node("cp1", "10.0.0.1", { conditions: [{ type: "Ready", status: "False" }] })],
    want: [plane("cp1", ["10.0.0.1", "cp1"], { ready: false })],
  },
  {
    name: "Ready condition Unknown: not Ready",
    nodes: [node("cp1", "10.0.0.1", { conditions: [{ type: "Ready", status: "Unknown" }] })],
    want: [plane("cp1", ["10.0.0.1", "cp1"], { ready: false })],
  },
  {
    name: "no Ready condition: not Ready",
    nodes: [node("cp1", "10.0.0.1", { conditions: [{ type: "MemoryPressure", status: "True" }] })],
    want: [plane("cp1", ["10.0.0.1", "cp1"], { ready: false })],
  },
  {
    name: "rebooting: reboot annotation and cordoned by someone else",
    nodes: [node("cp1", "10.0.0.1", { annotations: rebootingAnnotations, unschedulable: true })],
    want: [plane("cp1", ["10.0.0.1", "cp1"], { rebooting: true })],
  },
  {
    name: "not rebooting: reboot annotation but not cordoned",
    nodes: [node("cp1", "10.0.0.1", { annotations: rebootingAnnotations })],
    want: [plane("cp1", ["10.0.0.1", "cp1"])],
  },
  {
    name: "not rebooting: cordoned by kintsugi",
    nodes: [node("cp1", "10.0.0.1", { annotations: { ...rebootingAnnotations, [CORDONED_BY]: "entry-1" }, unschedulable: true })],
    want: [plane("cp1", ["10.0.0.1", "cp1"])],
  },
  {
    name: 'not rebooting: the annotation is not "true"',
    nodes: [node("cp1", "10.0.0.1", { annotations: { [REBOOT_ANNOTATION]: "false" }, unschedulable: true })],
    want: [plane("cp1", ["10.0.0.1", "cp1"])],
  },
  {
    name: "without Kubernetes nothing reboots",
    nodes: [node("cp1", "10.0.0.1", { annotations: rebootingAnnotations, unschedulable: true })],
    kubernetes: false,
    want: [plane("cp1", ["10.0.0.1", "cp1"])],
  },
  {
    name: "an IPv4-mapped InternalIP is known by its IPv4 form (and matches the configuration's)",
    nodes: [node("n1", "::ffff:10.0.0.1", { labels: {} })],
    generated: ["10.0.0.1"],
    want: [plane("n1", ["10.0.0.1", "n1"])],
  },
  { name: "an InternalIP that is no address is not one the control plane is known by", nodes: [node("cp1", "-rf")], want: [plane("cp1", ["cp1"])] },
  {
    name: "a labelled Node listed in the configuration too is one control plane",
    nodes: [node("cp1", "10.0.0.1")],
    generated: ["10.0.0.1"],
    want: [plane("cp1", ["10.0.0.1", "cp1"])],
  },
];

describe("controlPlanesOf", () => {
  for (const c of CASES) {
    it(c.name, () => {
      assert.deepEqual(controlPlanesOf(c.nodes, c.generated ?? [], c.kubernetes ?? true, CORDONED_BY), c.want);
    });
  }
});
