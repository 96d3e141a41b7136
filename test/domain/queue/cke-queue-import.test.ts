import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parseCkeQueue, planQueueImport, type CkeRepairEntry, type QueueImportState } from "../../../src/domain/queue/cke-queue-import.js";
import { parseConfig } from "../../../src/config/load-config.js";
import { createRepairEntry, type RepairEntry } from "../../../src/domain/queue/repair-entry.js";

const LISTED = readFileSync(new URL("../../fixtures/cke/repair-queue-list.json", import.meta.url), "utf8");
const NOW = Date.UTC(2026, 7, 21, 6, 50, 0);

/** CKE's repair section for the fixture's machines: unreachable in one step, unhealthy in two. */
const REPAIR = parseConfig(
  `repair:
  repair_procedures:
    - machine_types: ["IPMI-2.0"]
      repair_operations:
        - operation: unreachable
          repair_steps: [{ repair_command: ["true"], watch_seconds: 900 }]
          health_check_command: ["true"]
        - operation: unhealthy
          repair_steps: [{ repair_command: ["true"], watch_seconds: 900 }, { repair_command: ["true"], watch_seconds: 900 }]
          health_check_command: ["true"]
`,
  "test",
).repair;

function listed(): CkeRepairEntry[] {
  const r = parseCkeQueue(LISTED);
  if (!r.ok) throw new Error(r.errors.join("; "));
  return [...r.entries];
}
const state = (over: Partial<QueueImportState> = {}): QueueImportState => ({
  repair: REPAIR,
  queueEnabled: false,
  entries: [],
  finishedSources: new Set(),
  ...over,
});
const kintsugiEntry = (index: number, address: string, source = "operator"): RepairEntry => ({
  ...createRepairEntry({ address, machineType: "IPMI-2.0", operation: "unreachable", serial: null, source }, NOW),
  index,
});

describe("parseCkeQueue: ckecli repair-queue list's JSON", () => {
  it("reads CKE's entries: index strings, Go's zero time as none, drain back-off, serial", () => {
    const entries = listed();
    assert.deepEqual(
      entries.map((e) => [e.index, e.status, e.step, e.stepStatus]),
      [
        [39, "failed", 1, "watching"],
        [40, "succeeded", 0, "watching"],
        [41, "processing", 0, "watching"],
        [42, "queued", 0, "waiting"],
        [43, "processing", 0, "waiting"],
      ],
    );
    const draining = entries[4] as CkeRepairEntry;
    assert.equal(draining.drainBackoffCount, 2);
    assert.equal(draining.drainBackoffExpire, Date.UTC(2026, 7, 21, 6, 52, 20));
    assert.equal((entries[0] as CkeRepairEntry).drainBackoffExpire, null, "0001-01-01T00:00:00Z is none");
    assert.equal((entries[0] as CkeRepairEntry).serial, "1008");
  });

  it("reads null, an empty queue as ckecli prints it", () => assert.deepEqual(parseCkeQueue("null\n"), { ok: true, entries: [] }));

  const refused: Array<[string, string, RegExp]> = [
    ["text that is not JSON", "[{", /^not JSON/],
    ["an object", "{}", /must be a JSON array/],
    ["an index that is a number", LISTED.replace('"index": "39"', '"index": 39'), /^entry 0: index must be a decimal string/],
    ["an unknown status", LISTED.replace('"status": "failed"', '"status": "done"'), /^CKE entry 39: status must be one of/],
    ["an address that is not one", LISTED.replace('"address": "10.0.2.2"', '"address": "node-1"'), /^CKE entry 39: address must be an IP address$/],
    ["a time that is not RFC 3339", LISTED.replace('"2026-08-20T22:14:03Z"', '"yesterday"'), /^CKE entry 39: last_transition_time must be/],
    ["an index listed twice", LISTED.replace('"index": "40"', '"index": "39"'), /^CKE entry 39: listed twice$/],
  ];
  for (const [name, text, want] of refused) {
    it(`refuses ${name}`, () => {
      const r = parseCkeQueue(text);
      assert.ok(!r.ok);
      assert.ok(
        r.errors.some((e) => want.test(e)),
        r.errors.join("\n"),
      );
    });
  }
});

describe("planQueueImport: kintsugi goes on where CKE stopped", () => {
  it("adds every entry, finished or not, in its status, step and back-off, with source cke:INDEX", () => {
    const plan = planQueueImport(listed(), state(), NOW);
    assert.ok(plan.ok);
    assert.deepEqual(
      plan.add.map((e) => [e.source, e.address, e.status, e.step, e.stepStatus, e.drainBackoffCount]),
      [
        ["cke:39", "10.0.2.2", "failed", 1, "watching", 0],
        ["cke:40", "10.0.2.1", "succeeded", 0, "watching", 0],
        ["cke:41", "10.0.0.1", "processing", 0, "watching", 0],
        ["cke:42", "10.0.1.1", "queued", 0, "waiting", 0],
        ["cke:43", "10.0.0.2", "processing", 0, "waiting", 2],
      ],
    );
    assert.equal(plan.add[2]?.lastTransitionTime, Date.UTC(2026, 7, 21, 6, 40, 12));
    assert.deepEqual(plan.imported, []);
  });

  it("leaves out what was imported before, whether still queued or finished and gone", () => {
    const plan = planQueueImport(listed(), state({ entries: [kintsugiEntry(7, "10.0.0.1", "cke:41")], finishedSources: new Set(["cke:39"]) }), NOW);
    assert.ok(plan.ok);
    assert.deepEqual(
      plan.add.map((e) => e.source),
      ["cke:40", "cke:42", "cke:43"],
    );
    assert.deepEqual(plan.imported, [39, 41]);
  });

  const refusals: Array<[string, QueueImportState, RegExp]> = [
    ["while kintsugi's queue is enabled", state({ queueEnabled: true }), /^kintsugi's repair queue is enabled: disable it first/],
    [
      "an unfinished entry whose operation kintsugi's config lacks",
      state({
        repair: {
          ...REPAIR,
          repairProcedures: [{ ...REPAIR.repairProcedures[0]!, repairOperations: REPAIR.repairProcedures[0]!.repairOperations.slice(0, 1) }],
        },
      }),
      /^CKE entry 42 \(10.0.1.1\): repair operation "unhealthy" not found for machine type "IPMI-2.0" in kintsugi's repair config/,
    ],
    [
      "a machine with an unfinished entry on both sides",
      state({ entries: [kintsugiEntry(3, "10.0.1.1")] }),
      /^CKE entry 42 \(10.0.1.1\): kintsugi's entry 3 repairs the machine already/,
    ],
  ];
  for (const [name, s, want] of refusals) {
    it(`refuses ${name}, adding nothing`, () => {
      const plan = planQueueImport(listed(), s, NOW);
      assert.ok(!plan.ok);
      assert.ok(
        plan.errors.some((e) => want.test(e)),
        plan.errors.join("\n"),
      );
    });
  }

  it("refuses a step past the operation's steps (an unfinished entry only; a finished one is never worked on)", () => {
    const cke = listed().map((e) => (e.index === 41 ? { ...e, step: 1 } : e.index === 40 ? { ...e, step: 7 } : e));
    const plan = planQueueImport(cke, state(), NOW);
    assert.ok(!plan.ok);
    assert.deepEqual(plan.errors, ['CKE entry 41 (10.0.0.1): step 1 is past the 1 steps of operation "unreachable" in kintsugi\'s repair config']);
  });
});
