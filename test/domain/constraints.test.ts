import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_CONSTRAINTS, setConstraint, type Constraints } from "../../src/domain/constraints.js";

describe("setConstraint", () => {
  const cases: Array<{ name: string; current?: Partial<Constraints>; set: [string, number]; want: Partial<Constraints> | RegExp }> = [
    { name: "maximum-repair-queue-entries", set: ["maximum-repair-queue-entries", 5], want: { maximumRepairQueueEntries: 5 } },
    { name: "wait-seconds-to-repair-rebooting", set: ["wait-seconds-to-repair-rebooting", 600], want: { waitSecondsToRepairRebooting: 600 } },
    { name: "maximum-unhealthy-machines-per-rack", set: ["maximum-unhealthy-machines-per-rack", 3], want: { maximumUnhealthyMachinesPerRack: 3 } },
    { name: "wait-seconds-to-replace-control-plane", set: ["wait-seconds-to-replace-control-plane", 600], want: { waitSecondsToReplaceControlPlane: 600 } },
    { name: "wait-seconds-to-replace-control-plane 0 replaces at once", set: ["wait-seconds-to-replace-control-plane", 0], want: { waitSecondsToReplaceControlPlane: 0 } },
    { name: "wait-seconds-to-replace-control-plane negative", set: ["wait-seconds-to-replace-control-plane", -1], want: /wait-seconds-to-replace-control-plane must be an integer >= 0, got -1/ },
    { name: "zero is allowed where it means off", set: ["maximum-repair-queue-entries", 0], want: { maximumRepairQueueEntries: 0 } },
    { name: "unknown name", set: ["max-entries", 1], want: /unknown constraint "max-entries"; known: maximum-repair-queue-entries, / },
    { name: "negative", set: ["wait-seconds-to-repair-rebooting", -1], want: /wait-seconds-to-repair-rebooting must be an integer >= 0, got -1/ },
    { name: "not an integer", set: ["minimum-workers", 1.5], want: /minimum-workers must be an integer >= 0, got 1.5/ },
    { name: "control-plane-count 0", set: ["control-plane-count", 0], want: /control-plane-count must be >= 1, got 0/ },
    { name: "maximum-workers 0 is unlimited", current: { minimumWorkers: 5 }, set: ["maximum-workers", 0], want: { maximumWorkers: 0 } },
    { name: "maximum-workers below minimum", current: { minimumWorkers: 5 }, set: ["maximum-workers", 4], want: /maximum-workers \(4\) must be 0 \(unlimited\) or >= minimum-workers \(5\)/ },
    { name: "minimum-workers above maximum", current: { maximumWorkers: 3 }, set: ["minimum-workers", 4], want: /maximum-workers \(3\) must be 0/ },
    { name: "maximum-workers equal to minimum", current: { minimumWorkers: 5 }, set: ["maximum-workers", 5], want: { maximumWorkers: 5 } },
  ];
  it("waits 1800 s before replacing a control plane by default", () => {
    assert.equal(DEFAULT_CONSTRAINTS.waitSecondsToReplaceControlPlane, 1800);
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
