import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CONTROL_PLANE_LABEL, controlPlanesOf, type ControlPlane, type NodeFacts } from "../../../src/domain/queue/control-planes.js";
import { SEC, T, assertDecision, entry, snapshot, starts, watched, type DecisionCase } from "./repair-decision-support.js";

const T0 = T - 500;
const CORDONED_BY = "kintsugi.test/cordoned-by";

/** Control plane `cpN` at 10.0.0.N, Ready and not rebooting unless said otherwise. */
const cp = (n: number, over: Partial<ControlPlane> = {}): ControlPlane => ({
  name: `cp${n}`,
  addresses: [`10.0.0.${n}`, `cp${n}`],
  ready: true,
  rebooting: false,
  ...over,
});
const node = (n: number, over: Partial<NodeFacts> = {}): NodeFacts => ({
  name: `node${n}`,
  internalIPs: [`10.0.0.${n}`],
  unschedulable: false,
  annotations: {},
  labels: {},
  conditions: [{ type: "Ready", status: "True" }],
  ...over,
});
const labelled = { [CONTROL_PLANE_LABEL]: "true" };
const movesOn = (index: number) => ({ index, states: ["processing/1/waiting", "processing/1/watching"], effect: "repair-command" as const });

const CASES: DecisionCase[] = [
  // One machine, one repair, across a drain back-off
  {
    name: "a queued entry does not start while another entry for its machine waits out a drain back-off",
    snapshot: snapshot(
      [
        entry(1, { status: "processing", nodename: "node1", drainBackoffCount: 1, drainBackoffExpire: T + 200 * SEC }),
        entry(2, { address: "10.0.0.1", nodename: "node1" }),
      ],
      {},
      { max: 5 },
    ),
    want: [],
    held: { 1: /waiting out its drain back-off until 2026-11-22T06:03:20\.500Z/, 2: /machine 10\.0\.0\.1 is being repaired by entry 1/ },
    wakeAt: T + 200 * SEC,
  },
  {
    name: "when the back-off expires, the entry in back-off resumes its drain and the other still waits",
    snapshot: snapshot(
      [
        entry(1, { status: "processing", nodename: "node1", drainBackoffCount: 1, drainBackoffExpire: T - 1 }),
        entry(2, { address: "10.0.0.1", nodename: "node1" }),
      ],
      {},
      { max: 5 },
    ),
    want: [{ index: 1, states: ["processing/0/draining"], effect: "drain" }],
    held: { 2: /being repaired by entry 1/ },
  },
  {
    name: "max_concurrent_repairs reached is a reason",
    snapshot: snapshot([entry(1), entry(2)], {}, { max: 1 }),
    want: [starts(1)],
    held: { 2: /^max_concurrent_repairs \(1\) reached$/ },
  },
  // One control plane at a time
  {
    name: "three control-plane entries with max_concurrent_repairs 3: one starts",
    snapshot: snapshot([entry(1), entry(2), entry(3)], {}, { max: 3, controlPlanes: [cp(1), cp(2), cp(3)] }),
    want: [starts(1)],
    held: { 2: /^one control plane at a time: entry 1 is repairing control plane 10\.0\.0\.1$/, 3: /one control plane at a time: entry 1/ },
  },
  {
    name: "a control-plane entry and workers share the other slots",
    snapshot: snapshot([entry(1), entry(2), entry(3), entry(4)], {}, { max: 3, controlPlanes: [cp(1), cp(2)] }),
    want: [starts(1), starts(3), starts(4)],
    held: { 2: /one control plane at a time/ },
  },
  {
    name: "a processing control-plane entry held by a rule with a job running still counts as the control plane in progress",
    snapshot: snapshot([watched(1), entry(2)], { 1: { job: "repair-command" } }, { max: 3, controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }),
    want: [],
    held: { 1: /^control plane cp2 is not Ready$/, 2: /one control plane at a time: entry 1/ },
  },
  // Another control plane being rebooted
  {
    name: "a control-plane repair waits while another control plane is being rebooted",
    snapshot: snapshot([entry(1)], {}, { controlPlanes: [cp(1), cp(2, { rebooting: true })] }),
    want: [],
    held: { 1: /^control plane cp2 is being rebooted$/ },
  },
  {
    name: "a processing control-plane entry does not continue while another control plane is being rebooted",
    snapshot: snapshot([watched(1)], {}, { controlPlanes: [cp(1), cp(2, { rebooting: true })] }),
    want: [],
    held: { 1: /cp2 is being rebooted/ },
  },
  {
    name: "the entry of the rebooting control plane itself may start",
    snapshot: snapshot([entry(2)], {}, { controlPlanes: [cp(1), cp(2, { rebooting: true })] }),
    want: [starts(2)],
    held: {},
  },
  {
    name: "a worker is not held by a rebooting control plane",
    snapshot: snapshot([entry(5)], {}, { controlPlanes: [cp(1, { rebooting: true })] }),
    want: [starts(5)],
    held: {},
  },
  // Another control plane not Ready
  {
    name: "a control-plane repair waits while another control plane is not Ready",
    snapshot: snapshot([entry(1)], {}, { controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }),
    want: [],
    held: { 1: /^control plane cp2 is not Ready$/ },
  },
  {
    name: "the entry of the control plane that is not Ready may start",
    snapshot: snapshot([entry(2)], {}, { controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }),
    want: [starts(2)],
    held: {},
  },
  {
    name: "an entry naming a control plane by its node name is that control plane",
    snapshot: snapshot([entry(9, { address: "cp2" })], {}, { controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }),
    want: [starts(9)],
    held: {},
  },
  // Order
  {
    name: "a queued control-plane entry gets the single slot before an older queued worker entry",
    snapshot: snapshot([entry(1), entry(2)], {}, { max: 1, controlPlanes: [cp(2)] }),
    want: [starts(2)],
    held: { 1: /max_concurrent_repairs \(1\) reached/ },
  },
  {
    name: "processing entries still go before a queued control-plane entry",
    snapshot: snapshot([entry(1), watched(2)], {}, { max: 1, controlPlanes: [cp(1)] }),
    want: [movesOn(2)],
    held: { 1: /max_concurrent_repairs/ },
  },
  {
    name: "a processing control-plane entry goes before an older processing worker",
    snapshot: snapshot([watched(1), watched(2)], {}, { max: 1, controlPlanes: [cp(2)] }),
    want: [movesOn(2)],
    held: { 1: /max_concurrent_repairs/ },
  },
  // Where control-plane-ness comes from
  {
    name: "control planes from the Node label",
    snapshot: snapshot(
      [entry(1), entry(2), entry(3)],
      {},
      { max: 3, controlPlanes: controlPlanesOf([node(1, { labels: labelled }), node(2, { labels: labelled }), node(3)], [], true, CORDONED_BY) },
    ),
    want: [starts(1), starts(3)],
    held: { 2: /one control plane at a time/ },
  },
  {
    name: "control planes from the generated cluster configuration",
    snapshot: snapshot(
      [entry(1), entry(2), entry(3)],
      {},
      { max: 3, controlPlanes: controlPlanesOf([node(1), node(2), node(3)], ["10.0.0.2", "10.0.0.3"], true, CORDONED_BY) },
    ),
    want: [starts(2), starts(1)],
    held: { 3: /one control plane at a time: entry 2/ },
  },
  {
    name: "a generated control plane without a Node is not Ready when Kubernetes is configured",
    snapshot: snapshot(
      [entry(1)],
      {},
      { controlPlanes: controlPlanesOf([node(1, { labels: labelled }), node(2, { labels: labelled })], ["10.0.0.9"], true, CORDONED_BY) },
    ),
    want: [],
    held: { 1: /^control plane 10\.0\.0\.9 is not Ready$/ },
  },
  {
    name: "without Kubernetes only one-at-a-time applies",
    snapshot: snapshot(
      [entry(1), entry(2), entry(3)],
      {},
      { max: 3, controlPlanes: controlPlanesOf([], ["10.0.0.1", "10.0.0.2", "10.0.0.9"], false, CORDONED_BY) },
    ),
    want: [starts(1), starts(3)],
    held: { 2: /one control plane at a time: entry 1/ },
  },
  {
    name: "a held draining control-plane entry still backs off once its eviction timeout passes",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T - 601 * SEC })],
      {},
      { controlPlanes: [cp(1), cp(2, { rebooting: true })] },
    ),
    want: [{ index: 1, states: ["processing/0/waiting"], effect: "abandon-drain" }],
    held: { 1: /cp2 is being rebooted/ },
  },
  {
    name: "a held draining control-plane entry exactly at its eviction deadline still waits (strict <)",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T - 600 * SEC })],
      {},
      { controlPlanes: [cp(1), cp(2, { rebooting: true })] },
    ),
    want: [],
    held: { 1: /cp2 is being rebooted/ },
    wakeAt: T + 1,
  },
  {
    name: "a held draining control-plane entry abandons its drain when the queue is disabled",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T - 10 * SEC })],
      {},
      { enabled: false, controlPlanes: [cp(1), cp(2, { rebooting: true })] },
    ),
    want: [{ index: 1, states: ["processing/0/waiting"], effect: "abandon-drain" }],
    held: { 1: /cp2 is being rebooted/ },
  },
  {
    name: "a held draining control-plane entry wakes the runner at its eviction deadline",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T0 - 10 * SEC })],
      {},
      { controlPlanes: [cp(1), cp(2, { rebooting: true })] },
    ),
    want: [],
    held: { 1: /cp2 is being rebooted/ },
    wakeAt: T0 - 10 * SEC + 600 * SEC + 1,
  },
];

describe("decideRepairActions: holds, control planes", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const plan = assertDecision(c);
      for (const a of plan.actions) for (const t of a.transitions) assert.equal(t.after.lastTransitionTime, T0);
    });
  }
});
