import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_PUBLISHED_WAITS, MAX_WAIT_MESSAGE_CHARS } from "../../src/domain/queue/published-waits.js";
import { publishedWaitsSchema } from "../../src/store/core/value-schemas.js";

const hold = { index: 1, kind: "HOLD", message: "held by alice: vendor swap", until: 1_800_000_000_000, domain: null };

describe("publishedWaitsSchema: a stored value another process may have written (one it refuses reads as none)", () => {
  const cases: Array<{ name: string; value: unknown; want: unknown }> = [
    {
      name: "a list of waits reads as it is",
      value: [hold, { index: 2, kind: "MACHINE_BUSY", message: "m", until: null, domain: null, entryIndex: 1 }],
      want: [hold, { index: 2, kind: "MACHINE_BUSY", message: "m", until: null, domain: null, entryIndex: 1 }],
    },
    { name: "nothing stored reads as none", value: [], want: [] },
    { name: "an unknown kind refuses the whole value", value: [hold, { ...hold, index: 2, kind: "ASLEEP" }], want: [] },
    { name: "a message longer than the bound", value: [{ ...hold, message: "x".repeat(MAX_WAIT_MESSAGE_CHARS + 1) }], want: [] },
    {
      name: "a message at the bound",
      value: [{ ...hold, message: "x".repeat(MAX_WAIT_MESSAGE_CHARS) }],
      want: [{ ...hold, message: "x".repeat(MAX_WAIT_MESSAGE_CHARS) }],
    },
    { name: "more waits than the bound", value: Array.from({ length: MAX_PUBLISHED_WAITS + 1 }, (_, i) => ({ ...hold, index: i })), want: [] },
    { name: "a negative index", value: [{ ...hold, index: -1 }], want: [] },
    { name: "an until that is not a time", value: [{ ...hold, until: "tomorrow" }], want: [] },
    { name: "a key kintsugi does not write", value: [{ ...hold, script: "<img onerror>" }], want: [] },
    { name: "not a list", value: { 1: "held" }, want: [] },
    { name: "null", value: null, want: [] },
  ];
  for (const c of cases)
    it(c.name, () => {
      const parsed = publishedWaitsSchema.safeParse(c.value);
      assert.deepEqual(parsed.success ? parsed.data : [], c.want);
    });
});
