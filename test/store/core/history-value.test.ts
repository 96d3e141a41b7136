import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import type { RepairHistoryRecord } from "../../../src/domain/queue/repair-history.js";
import { decodeHistory, encodeHistory } from "../../../src/store/core/history-value.js";
import { encodeValue, storedEntry, UndecodableValueError } from "../../../src/store/core/store-values.js";
import { NOW } from "../../support/fixtures.js";

const KEY = "/kintsugi/history/0000000000000007/0000000000000042";
const ENTRY: RepairEntry = storedEntry({
  index: 7,
  address: "10.0.0.7",
  nodename: "rack1-cs7",
  serial: "s7",
  machineType: "qemu",
  operation: "unreachable",
  status: "queued",
  step: 0,
  stepStatus: "waiting",
  deleted: false,
  lastTransitionTime: null,
  drainBackoffCount: 0,
  drainBackoffExpire: null,
  createdAt: NOW,
  source: "sabakan",
});
const recordOf = (e: RepairEntry, extra: Partial<RepairHistoryRecord> = {}): RepairHistoryRecord => ({
  sequence: 42,
  entryIndex: 7,
  time: NOW + 5,
  kind: "transition",
  reason: "step 1: repair command exited 0, watching",
  detail: null,
  status: e.status,
  step: e.step,
  stepStatus: e.stepStatus,
  deleted: e.deleted,
  actor: "kintsugi",
  ...extra,
});
const COMMAND = { command: "repair" as const, operationId: null, replica: "kintsugi-0", run: "r1", startedAt: NOW, timeoutSeconds: 30 };
const EVIDENCE = { step: 1, bootIdBefore: null, bootIdAfter: null, since: {}, dwellStartedAt: null, dwellStarts: 0, provenAt: null };

describe("history values: what changed, read back as the record and the entry after it", () => {
  const cases: ReadonlyArray<{
    name: string;
    before: RepairEntry | null;
    after: RepairEntry;
    record?: Partial<RepairHistoryRecord>;
    stores: object;
    stamped?: true;
  }> = [
    {
      name: "created: the whole entry (but the key's index and the record's state)",
      before: null,
      after: ENTRY,
      record: { kind: "created", reason: "added by sabakan", actor: "sabakan" },
      stores: {
        address: "10.0.0.7",
        nodename: "rack1-cs7",
        serial: "s7",
        machineType: "qemu",
        operation: "unreachable",
        lastTransitionTime: null,
        drainBackoffCount: 0,
        drainBackoffExpire: null,
        createdAt: NOW,
        source: "sabakan",
      },
    },
    {
      name: "a transition of the runner's: the state, and a flag for the transition time that is the record's",
      before: ENTRY,
      after: { ...ENTRY, status: "processing", step: 1, stepStatus: "watching", lastTransitionTime: NOW + 5 },
      stores: {},
      stamped: true,
    },
    {
      name: "a transition time other than the record's: the number",
      before: ENTRY,
      after: { ...ENTRY, lastTransitionTime: NOW + 1 },
      stores: { lastTransitionTime: NOW + 1 },
    },
    {
      name: "a command started: the marker whole",
      before: ENTRY,
      after: { ...ENTRY, command: COMMAND },
      stores: { command: COMMAND },
    },
    {
      name: "a command ended and evidence dropped: null says the field is gone",
      before: { ...ENTRY, command: COMMAND, evidence: EVIDENCE },
      after: ENTRY,
      stores: { command: null, evidence: null },
    },
    {
      name: "a delete request: the flag in the record, no change beside it",
      before: ENTRY,
      after: { ...ENTRY, deleted: true },
      record: { kind: "delete-requested", actor: "ops" },
      stores: {},
    },
    {
      name: "a note with its detail and the replica that wrote it",
      before: ENTRY,
      after: ENTRY,
      record: { kind: "note", detail: "stdout: ok", replica: "kintsugi-1" },
      stores: {},
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const record = recordOf(c.after, c.record);
      const text = encodeHistory(record, c.before, c.after);
      const stored = JSON.parse(text) as { c?: object; v: number; l?: number };
      assert.equal(stored.v, 2);
      assert.deepEqual(stored.c ?? {}, c.stores);
      assert.equal(stored.l, c.stamped ? 1 : undefined);
      const decoded = decodeHistory(KEY, 7, 42, Buffer.from(text));
      assert.deepEqual(decoded.record, record);
      assert.deepEqual(decoded.entryAfter(c.before), storedEntry(c.after));
    });
  }

  it("keeps a transition of the runner's within 250 bytes with its key", () => {
    const after = { ...ENTRY, status: "processing" as const, step: 1, stepStatus: "watching" as const, lastTransitionTime: NOW + 5 };
    const text = encodeHistory(recordOf(after, { replica: "kintsugi-0" }), ENTRY, after);
    assert.ok(KEY.length + text.length <= 250, `${KEY.length + text.length} bytes: ${text}`);
  });

  it("tells no entry for a copied record (no change kept) unless the entry before is known", () => {
    const text = encodeHistory(recordOf(ENTRY), null, null);
    const decoded = decodeHistory(KEY, 7, 42, Buffer.from(text));
    assert.equal(decoded.entryAfter(null), null);
    assert.deepEqual(decoded.entryAfter({ ...ENTRY, status: "processing" }), ENTRY);
  });

  it("reads a format-1 value (the record and the whole entry) as it was written", () => {
    const record = recordOf(ENTRY);
    const decoded = decodeHistory(KEY, 7, 42, Buffer.from(encodeValue({ record, entry: ENTRY })));
    assert.deepEqual(decoded.record, record);
    assert.deepEqual(decoded.entryAfter(null), ENTRY);
  });

  const refused: ReadonlyArray<[string, string]> = [
    ["not JSON", "{"],
    ["a newer format", JSON.stringify({ v: 3, t: NOW })],
    ["a format-2 value without its time", JSON.stringify({ v: 2, k: "note", r: "", s: "queued", n: 0, ss: "waiting", a: "x" })],
    ["a status kintsugi does not know", JSON.stringify({ v: 2, t: NOW, k: "note", r: "", s: "exploded", n: 0, ss: "waiting", a: "x" })],
  ];
  for (const [name, text] of refused) {
    it(`refuses ${name}, naming the key`, () => {
      assert.throws(
        () => decodeHistory(KEY, 7, 42, Buffer.from(text)),
        (err: Error) => err instanceof UndecodableValueError && err.message.includes(KEY),
      );
    });
  }
});
