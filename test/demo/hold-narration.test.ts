import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SkippedMachine } from "../../src/domain/intake/auto-repair-intake.js";
import type { AutoRepairOutcome } from "../../src/domain/intake/auto-repair-outcome.js";
import { legacySkipKind } from "../../src/domain/intake/skip-kinds.js";
import { narrateHolds, type HoldNarrationContext, type Holds } from "../../scripts/demo/hold-narration.js";
import type { MirroredEntry } from "../../scripts/demo/queue-mirror.js";
import { entry, T } from "../domain/queue/repair-decision-support.js";

const RACK3 = "rack 3: 6 unhealthy machines, likely an infrastructure failure";
const skip = (serial: string, reason: string, state = "UNHEALTHY"): SkippedMachine => ({
  serial,
  address: `10.69.${serial[1]}.${serial[3]}`,
  state,
  reason,
  kind: legacySkipKind(reason),
  rack: Number(serial[1]),
});
const rack3 = (n: number) => Array.from({ length: n }, (_, i) => skip(`r3m${i + 1}`, RACK3.replace("6 unhealthy", `${n} unhealthy`), "UNREACHABLE"));
const outcome = (over: Partial<AutoRepairOutcome> = {}): AutoRepairOutcome => ({
  sequence: 1,
  time: T,
  trigger: "schedule",
  machinesSeen: over.skipped?.length ?? 0,
  enqueued: [],
  skipped: [],
  shortCircuit: null,
  error: null,
  ...over,
});
const mirrored = (index: number, address: string, finished: boolean): MirroredEntry => ({ index, address, serial: null, finished, deleted: false });
/** 10.69.0.1 (r0m1) has finished entry #7; 10.69.1.1 (r1m1) is being repaired as #8. */
const CONTEXT: HoldNarrationContext = {
  rackLimit: 2,
  cleanupEverySeconds: 30,
  rackOf: (serial) => Number(serial[1]),
  entriesOf: (address) => (address === "10.69.0.1" ? [mirrored(7, address, true)] : address === "10.69.1.1" ? [mirrored(8, address, false)] : []),
};
const LEAVES_R0M1 =
  "leaves r0m1 alone (10.69.0.1, UNHEALTHY: recently repaired, finished entry #7 still in the queue): it repairs a machine again only once " +
  "its entry is deleted (here the operator deletes succeeded entries every 30 s, a failed one once they have read why it failed), so a flapping machine is not repaired in a loop";

/** Tells the outcomes one after another from no holds; returns the lines of the last. */
function tell(...outcomes: AutoRepairOutcome[]): readonly string[] {
  let holds: Holds = new Map();
  let lines: readonly string[] = [];
  for (const o of outcomes) ({ holds, lines } = narrateHolds(holds, o, CONTEXT));
  return lines;
}

describe("narrateHolds", () => {
  const cases: Array<[string, AutoRepairOutcome[], string[]]> = [
    ["a poll that holds nothing says nothing", [outcome()], []],
    [
      "a rack held back: which rack, how many machines, kintsugi's reason and the limit",
      [outcome({ skipped: rack3(6) })],
      [
        `holds back rack 3 (6 machines): ${RACK3}. With at most 2 unhealthy per rack (maximum-unhealthy-machines-per-rack) it repairs none of them until the rack recovers`,
      ],
    ],
    ["the same hold at the next poll says nothing: once per change, not once per poll", [outcome({ skipped: rack3(6) }), outcome({ skipped: rack3(6) })], []],
    [
      "fewer machines down, still held",
      [outcome({ skipped: rack3(6) }), outcome({ skipped: rack3(4) })],
      ["still holds back rack 3 (4 machines): rack 3: 4 unhealthy machines, likely an infrastructure failure"],
    ],
    [
      "the hold clears when none of the rack's machines is unhealthy",
      [outcome({ skipped: rack3(6) }), outcome()],
      ["no longer holds back rack 3: none of its machines is unhealthy any more"],
    ],
    [
      "the hold clears when the rack is within the limit: its machines are repaired as usual",
      [outcome({ skipped: rack3(6) }), outcome({ enqueued: [entry(9, { serial: "r3m1" }), entry(10, { serial: "r3m2" })] })],
      ["no longer holds back rack 3: 2 unhealthy, within the limit of 2: repaired as usual"],
    ],
    [
      "a machine skipped as recently repaired while its finished entry lingers: why, and when that clears",
      [outcome({ skipped: [skip("r0m1", "recently repaired")] })],
      [LEAVES_R0M1],
    ],
    [
      "a machine skipped as recently repaired while it is being repaired is no hold: nothing said",
      [outcome({ skipped: [skip("r1m1", "recently repaired")] })],
      [],
    ],
    [
      "the skip clears when the entry is deleted and the machine is enqueued again",
      [outcome({ skipped: [skip("r0m1", "recently repaired")] }), outcome({ enqueued: [entry(12, { serial: "r0m1", address: "10.69.0.1" })] })],
      ["no longer skips r0m1 (was: recently repaired): enqueued as #12"],
    ],
    [
      "the skip clears when sabakan reports the machine healthy",
      [outcome({ skipped: [skip("r0m1", "recently repaired")] }), outcome()],
      ["no longer skips r0m1 (was: recently repaired): sabakan no longer reports it unhealthy"],
    ],
    [
      "the skip clears into its rack's hold",
      [
        outcome({ skipped: [skip("r0m1", "recently repaired")] }),
        outcome({ skipped: [skip("r0m1", "rack 0: 3 unhealthy machines, likely an infrastructure failure")] }),
      ],
      [
        "no longer skips r0m1 (was: recently repaired): held back with its rack instead",
        "holds back rack 0 (1 machine): rack 0: 3 unhealthy machines, likely an infrastructure failure. With at most 2 unhealthy per rack (maximum-unhealthy-machines-per-rack) it repairs none of them until the rack recovers",
      ],
    ],
    [
      "any other skip, with kintsugi's reason",
      [outcome({ skipped: [skip("r0m2", "rebooting", "UNREACHABLE")] })],
      ["skips r0m2 (10.69.0.2, UNREACHABLE: rebooting)"],
    ],
    [
      "the all-or-nothing cap, without a line per machine",
      [outcome({ skipped: [skip("r0m2", "too many repair requests")], shortCircuit: { existingEntries: 12, candidates: 1, limit: 12 } })],
      ["enqueues nothing this poll: 12 entries in the queue + 1 unhealthy machine > maximum-repair-queue-entries 12 (all or nothing, as CKE)"],
    ],
    ["the cap clears", [outcome({ shortCircuit: { existingEntries: 12, candidates: 1, limit: 12 } }), outcome()], ["enqueues again: the queue has room"]],
    ["a failed poll", [outcome({ error: "HTTP 502 from sabakan" })], ["cannot poll sabakan: HTTP 502 from sabakan; it tries again at the next poll"]],
    [
      "a failed poll clears no hold: it tells nothing about the machines",
      [outcome({ skipped: rack3(6) }), outcome({ error: "HTTP 502 from sabakan" })],
      ["cannot poll sabakan: HTTP 502 from sabakan; it tries again at the next poll"],
    ],
    [
      "polls work again, the hold still there: only the recovery is told",
      [outcome({ skipped: rack3(6) }), outcome({ error: "timeout" }), outcome({ skipped: rack3(6) })],
      ["polls sabakan again"],
    ],
  ];
  for (const [name, outcomes, expected] of cases) {
    it(name, () => assert.deepEqual(tell(...outcomes), expected));
  }
});
