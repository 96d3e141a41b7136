import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WatchLines, type WatchRead } from "../../src/adapters/watch-lines.js";

const event = (type: string, message = "") => JSON.stringify({ type, object: { message } });

describe("WatchLines", () => {
  const cases: Array<[string, readonly string[], readonly WatchRead[]]> = [
    [
      "one event per line",
      [`${event("ADDED")}\n${event("MODIFIED")}\n`],
      [
        {
          events: [
            { type: "ADDED", message: '""' },
            { type: "MODIFIED", message: '""' },
          ],
          failure: null,
        },
      ],
    ],
    [
      "a line split across chunks",
      [event("ADDED").slice(0, 5), `${event("ADDED").slice(5)}\n`],
      [
        { events: [], failure: null },
        { events: [{ type: "ADDED", message: '""' }], failure: null },
      ],
    ],
    ["blank lines are skipped", ["\n\r\n"], [{ events: [], failure: null }]],
    [
      "an ERROR event carries its message, quoted and escaped",
      [`${event("ERROR", "too old\u202e")}\n`],
      [{ events: [{ type: "ERROR", message: '"too old\\u202e"' }], failure: null }],
    ],
    ["a line that is not JSON is a failure", ["<html>\n"], [{ events: [], failure: 'a line that is not JSON: "<html>"' }]],
    ["JSON that is not an event is a failure", ["[1]\n"], [{ events: [], failure: 'a line that is not a watch event: "[1]"' }]],
    [
      "a line longer than the bound fails without its end",
      ["x".repeat(40), "x".repeat(30)],
      [
        { events: [], failure: null },
        { events: [], failure: "a line longer than 64 bytes (kubernetes.max_response_bytes)" },
      ],
    ],
    ["a line of exactly the bound is read", [`${event("ADDED").padEnd(64, " ")}\n`], [{ events: [{ type: "ADDED", message: '""' }], failure: null }]],
    [
      "nothing is read after a failure",
      ["<html>\n", `${event("ADDED")}\n`],
      [
        { events: [], failure: 'a line that is not JSON: "<html>"' },
        { events: [], failure: null },
      ],
    ],
  ];
  for (const [name, chunks, want] of cases) {
    it(name, () => {
      const lines = new WatchLines(64);
      assert.deepEqual(
        chunks.map((c) => lines.push(Buffer.from(c))),
        want,
      );
    });
  }
});
