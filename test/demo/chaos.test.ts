import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pickMachineToBreak, pickMachineToFlap, type ChaosMachine, type ChaosRules } from "../../scripts/demo/chaos.js";

/** The scenario's clock, in seconds. */
const NOW = 1000;
const RULES: ChaosRules = { powerCutRack: 3, rackLimit: 2, maxDown: 3, coolDownSeconds: 120 };

const machine = (serial: string, over: Partial<ChaosMachine> = {}): ChaosMachine => {
  const [, rack, index] = /^r(\d)m(\d)$/.exec(serial) as RegExpExecArray;
  return {
    serial,
    rack: Number(rack),
    address: `10.69.${rack}.${index}`,
    state: "HEALTHY",
    works: true,
    inQueue: false,
    lingers: false,
    repairedAt: null,
    controlPlane: false,
    ...over,
  };
};
const down = (serial: string) => machine(serial, { state: "UNHEALTHY", works: false, inQueue: true });
/** Always the first candidate. */
const first = () => 0;

describe("pickMachineToBreak", () => {
  const cases: Array<[string, ChaosMachine[], string | null]> = [
    ["a healthy machine breaks", [machine("r0m1")], "r0m1"],
    ["never one of the power-cut rack", [machine("r3m1")], null],
    ["never a control plane: they break only together, in their own incident", [machine("r0m1", { controlPlane: true }), machine("r0m2")], "r0m2"],
    [
      "never one kintsugi would skip as recently repaired (an entry of its address is in the queue)",
      [machine("r0m1", { inQueue: true }), machine("r0m2")],
      "r0m2",
    ],
    ["never one repaired less than the cool-down ago", [machine("r0m1", { repairedAt: NOW - 119 }), machine("r0m2")], "r0m2"],
    ["one repaired the cool-down ago or earlier may break again", [machine("r0m1", { repairedAt: NOW - 120 })], "r0m1"],
    ["never a third in a rack with two down: it would look like a rack-wide failure", [down("r0m1"), down("r0m2"), machine("r0m3"), machine("r1m1")], "r1m1"],
    [
      "a machine still reported healthy whose break is being reported counts as down",
      [machine("r0m1", { works: false }), down("r0m2"), machine("r0m3"), machine("r1m1")],
      "r1m1",
    ],
    ["a machine that works but is still UNHEALTHY in sabakan counts as down", [machine("r0m1", { state: "UNHEALTHY" }), down("r0m2"), machine("r0m3")], null],
    ["nothing while three machines are down outside the power-cut rack", [down("r0m1"), down("r1m1"), down("r2m1"), machine("r0m2")], null],
    ["the power-cut rack's machines do not count toward that cap", [down("r3m1"), down("r3m2"), down("r3m3"), down("r0m1"), machine("r1m1")], "r1m1"],
    ["nothing when no machine may break", [], null],
  ];
  it("prefers the racks asked for when one of them has a candidate", () => {
    assert.equal(pickMachineToBreak([machine("r0m1"), machine("r1m1")], NOW, RULES, first, new Set([1]))?.serial, "r1m1");
    assert.equal(pickMachineToBreak([machine("r0m1"), down("r1m1"), down("r1m2")], NOW, RULES, first, new Set([1]))?.serial, "r0m1", "else any");
  });
  it("never one of a rack kept quiet for an incident", () => {
    assert.equal(pickMachineToBreak([machine("r0m1"), machine("r1m1")], NOW, RULES, first, new Set(), new Set([0]))?.serial, "r1m1");
    assert.equal(pickMachineToBreak([machine("r0m1")], NOW, RULES, first, new Set([0]), new Set([0])), null, "even when preferred");
  });
  for (const [name, machines, expected] of cases) {
    it(name, () => assert.equal(pickMachineToBreak(machines, NOW, RULES, first)?.serial ?? null, expected));
  }

  it("picks among the candidates with `random`, never past the last", () => {
    const machines = [machine("r0m1"), machine("r1m1"), machine("r2m1")];
    assert.deepEqual(
      [0, 0.34, 0.67, 0.999999].map((r) => pickMachineToBreak(machines, NOW, RULES, () => r)?.serial),
      ["r0m1", "r1m1", "r2m1", "r2m1"],
    );
  });
});

describe("pickMachineToFlap", () => {
  const cases: Array<[string, ChaosMachine[], string[], string | null]> = [
    [
      "the newest repaired machine whose finished entry lingers",
      [machine("r0m1", { lingers: true }), machine("r1m1", { lingers: true })],
      ["r0m1", "r1m1"],
      "r1m1",
    ],
    [
      "not one whose entry is gone or being deleted (kintsugi would simply repair it)",
      [machine("r0m1", { lingers: true }), machine("r1m1")],
      ["r0m1", "r1m1"],
      "r0m1",
    ],
    ["not one still UNHEALTHY in sabakan (not yet reported healthy)", [machine("r0m1", { lingers: true, state: "UNHEALTHY" })], ["r0m1"], null],
    ["not one in a rack with two down", [machine("r0m1", { lingers: true }), down("r0m2"), down("r0m3")], ["r0m1"], null],
    ["not one of the power-cut rack", [machine("r3m1", { lingers: true })], ["r3m1"], null],
    ["none before a repair", [machine("r0m1", { lingers: true })], [], null],
  ];
  for (const [name, machines, justRepaired, expected] of cases) {
    it(name, () => assert.equal(pickMachineToFlap(machines, justRepaired, RULES)?.serial ?? null, expected));
  }
});
