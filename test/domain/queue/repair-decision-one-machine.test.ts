import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairConfig } from "../../../src/domain/queue/repair-config.js";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import type { RepairObservation } from "../../../src/domain/queue/repair-plan.js";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { CONFIG, SEC, T, entry, fixedRandom, operation, snapshot, stepCfg } from "./repair-decision-support.js";

// The queue allows two entries of one machine (an operator adds one, the trigger another): whatever the health rule
// decides, no two commands run on that machine at once, and no drain starts beside a command there.
const WITH_SUCCESS: RepairConfig = {
  ...CONFIG,
  maxConcurrentRepairs: 3,
  repairProcedures: [
    { machineTypes: ["m"], repairOperations: [operation([stepCfg({ needDrain: true }), stepCfg({ watchSeconds: 0 })], { successCommand: ["notify"] })] },
  ],
};
const ADDRESS = "10.0.0.9";
const on = (index: number, over: Partial<RepairEntry> = {}) => entry(index, { address: ADDRESS, nodename: "n9", ...over });
const watchedOut = { status: "processing", stepStatus: "watching", lastTransitionTime: T - 3600 * SEC } as const;

interface Case {
  readonly name: string;
  readonly entries: RepairEntry[];
  readonly observations: Record<number, Partial<RepairObservation>>;
  readonly config?: RepairConfig;
  /** The entries whose action starts a success command (a command, not only the state change). */
  readonly successCommands: readonly number[];
  /** Entries that wait for the machine, and for which entry. */
  readonly busy: Readonly<Record<number, number>>;
  /** Entries whose action starts a drain or a repair command. */
  readonly disrupted?: readonly number[];
}

const ONE_AT_A_TIME: RepairConfig = { ...WITH_SUCCESS, maxConcurrentRepairs: 1 };

const CASES: readonly Case[] = [
  {
    name: "two entries of one machine both found healthy: one success command runs, the other waits for it",
    entries: [on(1), on(2)],
    observations: { 1: { healthy: true }, 2: { healthy: true } },
    successCommands: [1],
    busy: { 2: 1 },
  },
  {
    name: "healthy while another entry of its machine runs its repair command: its success command waits for that command",
    entries: [on(1, { ...watchedOut }), on(2)],
    observations: { 1: { job: "repair-command", healthy: undefined }, 2: { healthy: true } },
    successCommands: [],
    busy: { 2: 1 },
  },
  {
    name: "watched out while a later entry of its machine runs its diagnostics command: no drain starts beside it",
    entries: [on(1, { ...watchedOut }), on(2)],
    observations: { 1: { healthy: false }, 2: { job: "diagnostics", healthy: undefined } },
    successCommands: [],
    busy: { 1: 2 },
    disrupted: [],
  },
  {
    name: "mid-repair beside another entry's success command on its machine: it keeps its slot, and no other machine starts",
    entries: [on(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC }), on(2), entry(3)],
    observations: { 1: { healthy: false }, 2: { healthy: true }, 3: { healthy: false } },
    config: ONE_AT_A_TIME,
    successCommands: [2],
    busy: { 1: 2 },
    disrupted: [],
  },
  {
    name: "without a success command both succeed: nothing runs on the machine",
    entries: [on(1), on(2)],
    observations: { 1: { healthy: true }, 2: { healthy: true } },
    config: CONFIG,
    successCommands: [],
    busy: {},
  },
];

describe("decideRepairActions: one command at a time on a machine with two entries", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const plan = decideRepairActions(snapshot(c.entries, c.observations, { config: c.config ?? WITH_SUCCESS }), T, fixedRandom(0));
      const commands = plan.actions.filter((a) => a.effect.kind === "success-command" && a.effect.operation.successCommand !== null).map((a) => a.entry.index);
      assert.deepEqual(commands, c.successCommands);
      const busy = Object.fromEntries([...plan.held].filter(([, w]) => w.kind === "MACHINE_BUSY").map(([i, w]) => [i, w.entryIndex]));
      assert.deepEqual(busy, c.busy);
      if (c.disrupted) {
        const disrupted = plan.actions.filter((a) => a.effect.kind === "drain" || a.effect.kind === "repair-command").map((a) => a.entry.index);
        assert.deepEqual(disrupted, c.disrupted);
      }
    });
  }
});
