import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_PUBLISHED_BYTES, MAX_PUBLISHED_WAITS, MAX_WAIT_MESSAGE_CHARS, publishedWaits, waitsByIndex } from "../../../src/domain/queue/published-waits.js";
import { waitForCommand, waitForMachine, waitForPacing, waitForQueueEnabled, waitForSlot, type WaitingFor } from "../../../src/domain/queue/repair-wait.js";

const map = (pairs: Array<[number, WaitingFor]>) => new Map(pairs);

describe("publishedWaits", () => {
  const cases: Array<{ name: string; held: Array<[number, WaitingFor]>; waiting: Array<[number, WaitingFor]>; want: unknown }> = [
    { name: "nothing waits: an empty list", held: [], waiting: [], want: [] },
    {
      name: "held and waiting together, sorted by index",
      held: [[5, waitForSlot(2)]],
      waiting: [[2, waitForCommand("repair", 0)]],
      want: [
        { index: 2, kind: "COMMAND", message: "step 1: running the repair command", until: null, domain: null },
        { index: 5, kind: "CONCURRENCY", message: "max_concurrent_repairs (2) reached", until: null, domain: null },
      ],
    },
    {
      name: "a rule's hold wins over the entry's own wait",
      held: [[1, waitForMachine("10.0.0.1", 9)]],
      waiting: [[1, waitForQueueEnabled()]],
      want: [{ index: 1, kind: "MACHINE_BUSY", message: "machine 10.0.0.1 is being repaired by entry 9", until: null, domain: null, entryIndex: 9 }],
    },
    {
      name: "a long message and domain are cut, saying so",
      held: [[1, waitForPacing("p".repeat(MAX_WAIT_MESSAGE_CHARS + 50), "machine_type=" + "t".repeat(MAX_WAIT_MESSAGE_CHARS))]],
      waiting: [],
      want: [
        {
          index: 1,
          kind: "PACING",
          message: `${"p".repeat(MAX_WAIT_MESSAGE_CHARS - 1)}…`,
          until: null,
          domain: `machine_type=${"t".repeat(MAX_WAIT_MESSAGE_CHARS - 14)}…`,
        },
      ],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(publishedWaits(map(c.held), map(c.waiting)), c.want));

  it(`keeps at most ${MAX_PUBLISHED_WAITS} waits, the lowest indexes`, () => {
    const many = map(Array.from({ length: MAX_PUBLISHED_WAITS + 10 }, (_, i): [number, WaitingFor] => [MAX_PUBLISHED_WAITS + 10 - i, waitForSlot(1)]));
    const got = publishedWaits(many, new Map());
    assert.equal(got.length, MAX_PUBLISHED_WAITS);
    assert.deepEqual([got[0]?.index, got.at(-1)?.index], [1, MAX_PUBLISHED_WAITS]);
  });

  it(`keeps at most ${MAX_PUBLISHED_BYTES} bytes of JSON, however the messages are spelled`, () => {
    // A control character is 6 bytes in JSON, a CJK character 3 in UTF-8: the worst a hostile hold reason can do.
    const hostile = (i: number): [number, WaitingFor] => [
      i,
      waitForPacing("\u0001\u4e00".repeat(MAX_WAIT_MESSAGE_CHARS), `machine_type=${"\u0002".repeat(MAX_WAIT_MESSAGE_CHARS)}`),
    ];
    const got = publishedWaits(map(Array.from({ length: MAX_PUBLISHED_WAITS }, (_, i) => hostile(i + 1))), new Map());
    const bytes = new TextEncoder().encode(JSON.stringify(got)).length;
    assert.ok(bytes <= MAX_PUBLISHED_BYTES, `${bytes} bytes`);
    assert.ok(got.length > 50 && got.length < MAX_PUBLISHED_WAITS, `${got.length} waits`);
    assert.deepEqual(
      got.map((w) => w.index),
      Array.from({ length: got.length }, (_, i) => i + 1),
      "the lowest indexes, none skipped",
    );
  });

  it("waitsByIndex reads a published list back by index", () => {
    const published = publishedWaits(map([[3, waitForMachine("10.0.0.3", 1)]]), map([[4, waitForQueueEnabled()]]));
    assert.deepEqual(
      [...waitsByIndex(published)],
      [
        [3, waitForMachine("10.0.0.3", 1)],
        [4, waitForQueueEnabled()],
      ],
    );
  });
});
