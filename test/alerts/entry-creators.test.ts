import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { CREATOR_CHARS, EntryCreators } from "../../src/alerts/entry-creators.js";
import type { RepairEntryEventPayload } from "../../src/domain/alerts/alert-messages.js";

const event = (kind: RepairEntryEventPayload["kind"], index: string, actor = "ci-bot"): RepairEntryEventPayload => ({
  kind,
  entry: {
    index,
    address: `10.0.0.${index}`,
    nodename: "",
    serial: null,
    machineType: "qemu",
    operation: "unreachable",
    status: "QUEUED",
    step: 0,
    stepStatus: "WAITING",
    drainBackoffCount: 0,
    drainBackoffExpire: null,
    source: "operator",
  },
  previous: null,
  record: { time: "2026-11-22T05:00:00Z", reason: "", detail: null, actor },
});

describe("the creators the alert bridge remembers", () => {
  const cases: Array<[string, Array<[RepairEntryEventPayload, string | null]>]> = [
    [
      "an entry seen created names its creator in its later events",
      [
        [event("CREATED", "1", "ci-bot"), "ci-bot"],
        [event("TRANSITION", "1", "kintsugi"), "ci-bot"],
      ],
    ],
    ["an entry not seen created names no one", [[event("TRANSITION", "2", "kintsugi"), null]]],
    [
      "a dequeued entry is forgotten",
      [
        [event("CREATED", "3"), "ci-bot"],
        [event("DEQUEUED", "3", "kintsugi"), "ci-bot"],
        [event("TRANSITION", "3", "kintsugi"), null],
      ],
    ],
    [
      "beyond the limit (2 here) the oldest is forgotten first",
      [
        [event("CREATED", "4", "a"), "a"],
        [event("CREATED", "5", "b"), "b"],
        [event("CREATED", "6", "c"), "c"],
        [event("TRANSITION", "4"), null],
        [event("TRANSITION", "5"), "b"],
      ],
    ],
  ];
  for (const [name, steps] of cases) {
    it(name, () => {
      const creators = new EntryCreators(2);
      for (const [e, expected] of steps) assert.equal(creators.requesterOf(e), expected, `${e.kind} ${e.entry.index}`);
      assert.ok(creators.size <= 2);
    });
  }

  it("keeps no more than its limit however many entries a server says were created, each name cut", () => {
    const creators = new EntryCreators();
    const huge = "x".repeat(1_000_000);
    for (let i = 0; i < 20_000; i++) creators.requesterOf(event("CREATED", String(i), huge));
    assert.equal(creators.size, 10_000);
    assert.equal(creators.requesterOf(event("TRANSITION", "19999"))?.length, CREATOR_CHARS);
  });

  it("keeps the cut names only, not the long names they were cut from", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const creators = new EntryCreators();
    gc();
    const before = process.memoryUsage().heapUsed;
    // 40 distinct names of 2 MB: 80 MB if the long names were kept.
    for (let i = 0; i < 40; i++) creators.requesterOf(event("CREATED", String(i), `${i}`.padEnd(2_000_000, "x")));
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    assert.ok(grown < 20_000_000, `the heap grew by ${Math.round(grown / 1e6)} MB`);
    assert.equal(creators.size, 40);
  });
});
