import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CONSTRAINT_NAMES, DEFAULT_CONSTRAINTS, setConstraint, type Constraints } from "../../../src/domain/shared/constraints.js";

describe("setConstraint", () => {
  const cases: Array<{ name: string; current?: Partial<Constraints>; set: [string, number]; want: Partial<Constraints> | RegExp }> = [
    { name: "maximum-repair-queue-entries", set: ["maximum-repair-queue-entries", 5], want: { maximumRepairQueueEntries: 5 } },
    { name: "wait-seconds-to-repair-rebooting", set: ["wait-seconds-to-repair-rebooting", 600], want: { waitSecondsToRepairRebooting: 600 } },
    { name: "maximum-unhealthy-machines-per-rack", set: ["maximum-unhealthy-machines-per-rack", 3], want: { maximumUnhealthyMachinesPerRack: 3 } },
    { name: "wait-seconds-to-replace-control-plane", set: ["wait-seconds-to-replace-control-plane", 600], want: { waitSecondsToReplaceControlPlane: 600 } },
    {
      name: "wait-seconds-to-replace-control-plane 0 replaces at once",
      set: ["wait-seconds-to-replace-control-plane", 0],
      want: { waitSecondsToReplaceControlPlane: 0 },
    },
    {
      name: "wait-seconds-to-replace-control-plane negative",
      set: ["wait-seconds-to-replace-control-plane", -1],
      want: /^wait-seconds-to-replace-control-plane must be an integer >= 0, got -1: 0 replaces at once; a negative wait has no meaning$/,
    },
    { name: "minimum-workers-rate takes any integer, as in CKE", set: ["minimum-workers-rate", 50], want: { minimumWorkersRate: 50 } },
    { name: "minimum-workers-rate over 100 (retires none)", set: ["minimum-workers-rate", 150], want: { minimumWorkersRate: 150 } },
    { name: "minimum-workers-rate negative, as CKE takes it", set: ["minimum-workers-rate", -10], want: { minimumWorkersRate: -10 } },
    { name: "maximum-unreachable-nodes-for-reboot is stored", set: ["maximum-unreachable-nodes-for-reboot", 3], want: { maximumUnreachableNodesForReboot: 3 } },
    {
      name: "maximum-unreachable-nodes-for-reboot negative, as CKE takes it",
      set: ["maximum-unreachable-nodes-for-reboot", -1],
      want: { maximumUnreachableNodesForReboot: -1 },
    },
    {
      name: "a negative queue limit is not unlimited",
      set: ["maximum-repair-queue-entries", -1],
      want: /^maximum-repair-queue-entries must be an integer >= 0, got -1: a negative limit would enqueue nothing \(it does not mean unlimited\)$/,
    },
    { name: "zero is allowed where it means off", set: ["maximum-repair-queue-entries", 0], want: { maximumRepairQueueEntries: 0 } },
    { name: "unknown name", set: ["max-entries", 1], want: /unknown constraint "max-entries"; known: control-plane-count, minimum-workers-rate, / },
    {
      name: "a negative rebooting wait is not forever",
      set: ["wait-seconds-to-repair-rebooting", -1],
      want: /^wait-seconds-to-repair-rebooting must be an integer >= 0, got -1: a negative wait would repair a rebooting machine at once \(it does not mean forever\)$/,
    },
    { name: "not an integer", set: ["minimum-workers", 1.5], want: /^minimum-workers must be an integer, got 1.5$/ },
    { name: "not a safe integer", set: ["minimum-workers-rate", 2 ** 53], want: /^minimum-workers-rate must be an integer, got 9007199254740992$/ },
    {
      name: "control-plane-count 0",
      set: ["control-plane-count", 0],
      want: /^control-plane-count must be an integer >= 1, got 0: a cluster without a control plane cannot run$/,
    },
    { name: "maximum-workers 0 is unlimited", current: { minimumWorkers: 5 }, set: ["maximum-workers", 0], want: { maximumWorkers: 0 } },
    {
      name: "maximum-workers below minimum",
      current: { minimumWorkers: 5 },
      set: ["maximum-workers", 4],
      want: /maximum-workers \(4\) must be 0 \(unlimited\) or >= minimum-workers \(5\)/,
    },
    { name: "minimum-workers above maximum", current: { maximumWorkers: 3 }, set: ["minimum-workers", 4], want: /maximum-workers \(3\) must be 0/ },
    { name: "maximum-workers equal to minimum", current: { minimumWorkers: 5 }, set: ["maximum-workers", 5], want: { maximumWorkers: 5 } },
  ];
  it("waits 1800 s before replacing a control plane by default", () => {
    assert.equal(DEFAULT_CONSTRAINTS.waitSecondsToReplaceControlPlane, 1800);
  });
  it("has CKE's defaults for CKE's constraints (constraints.go DefaultConstraints)", () => {
    const { controlPlaneCount, minimumWorkersRate, maximumUnreachableNodesForReboot, maximumRepairQueueEntries, waitSecondsToRepairRebooting } =
      DEFAULT_CONSTRAINTS;
    assert.deepEqual(
      { controlPlaneCount, minimumWorkersRate, maximumUnreachableNodesForReboot, maximumRepairQueueEntries, waitSecondsToRepairRebooting },
      { controlPlaneCount: 1, minimumWorkersRate: 80, maximumUnreachableNodesForReboot: 0, maximumRepairQueueEntries: 0, waitSecondsToRepairRebooting: 0 },
    );
  });
  it("names CKE's five first, in CKE's order, then kintsugi's own", () => {
    assert.deepEqual(Object.keys(CONSTRAINT_NAMES), [
      "control-plane-count",
      "minimum-workers-rate",
      "maximum-unreachable-nodes-for-reboot",
      "maximum-repair-queue-entries",
      "wait-seconds-to-repair-rebooting",
      "maximum-unhealthy-machines-per-rack",
      "minimum-workers",
      "maximum-workers",
      "wait-seconds-to-replace-control-plane",
    ]);
  });
  for (const c of cases) {
    it(c.name, () => {
      const current = { ...DEFAULT_CONSTRAINTS, ...c.current };
      const got = setConstraint(current, ...c.set);
      if (c.want instanceof RegExp) {
        assert.equal(got.ok, false);
        assert.match(got.ok ? "" : got.message, c.want);
      } else {
        assert.deepEqual(got, { ok: true, constraints: { ...current, ...c.want } });
      }
    });
  }
});
