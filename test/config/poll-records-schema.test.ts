import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_POLL_RECORDS } from "../../src/config/poll-records-schema.js";
import { parseConfig } from "../../src/config/load-config.js";

describe("poll_records (what the what-if replay keeps)", () => {
  it("defaults to two weeks and 64 MiB without the section", () => {
    assert.deepEqual(parseConfig("", "k.yaml").pollRecords, { keepSeconds: 14 * 86_400, maxBytes: 64 * 1024 * 1024 });
    assert.deepEqual(parseConfig("poll_records: {}\n", "k.yaml").pollRecords, DEFAULT_POLL_RECORDS);
  });

  it("reads both keys", () => {
    assert.deepEqual(parseConfig("poll_records: { keep_days: 30, max_bytes: 2097152 }\n", "k.yaml").pollRecords, {
      keepSeconds: 30 * 86_400,
      maxBytes: 2_097_152,
    });
  });

  const bad: Array<[string, string, RegExp]> = [
    ["no days", "{ keep_days: 0 }", /poll_records\.keep_days: must be >= 1/],
    ["more than a year", "{ keep_days: 400 }", /poll_records\.keep_days: must be <= 366/],
    ["a fraction of a day", "{ keep_days: 1.5 }", /poll_records\.keep_days/],
    ["less than a megabyte", "{ max_bytes: 1000 }", /poll_records\.max_bytes: must be >= 1048576/],
    ["a string", '{ max_bytes: "64M" }', /poll_records\.max_bytes: must be an integer/],
    ["an unknown key", "{ keep: 3 }", /poll_records\.keep: unknown key/],
  ];
  for (const [name, section, message] of bad) {
    it(`refuses ${name}, naming the key`, () => assert.throws(() => parseConfig(`poll_records: ${section}\n`, "k.yaml"), { message }));
  }
});
