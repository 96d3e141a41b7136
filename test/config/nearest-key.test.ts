import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { editDistance, knownKeysAt, nearestKey } from "../../src/config/nearest-key.js";
import { configFileSchema } from "../../src/config/config-schema.js";

describe("nearestKey: the known key a misspelt one most likely meant", () => {
  const cases: Array<[string, string, readonly string[], string | null]> = [
    ["a letter left out", "max_concurent_repairs", ["repair_procedures", "max_concurrent_repairs", "evict_retries"], "max_concurrent_repairs"],
    ["two letters swapped", "evcit_retries", ["evict_retries", "evict_interval"], "evict_retries"],
    ["a short key, two edits", "lisen", ["listen", "store"], "listen"],
    ["case and dashes", "Max-Concurrent-Repairs", ["max_concurrent_repairs"], "max_concurrent_repairs"],
    [
      "a tie goes to the longer shared prefix",
      "success_command_timeout_seconds",
      ["command_timeout_seconds", "success_command_timeout"],
      "success_command_timeout",
    ],
    ["nothing near", "colour", ["listen", "database", "repair"], null],
    ["nothing known", "listen", [], null],
    ["a key far longer than any config key", "x".repeat(100), ["x"], null],
  ];
  for (const [name, key, known, expected] of cases) it(name, () => assert.equal(nearestKey(key, known), expected));

  it("edit distance: insertions, deletions, substitutions, neighbours swapped", () => {
    assert.deepEqual([editDistance("", "abc"), editDistance("abc", "abc"), editDistance("abc", "acb"), editDistance("kitten", "sitting")], [3, 0, 1, 3]);
  });
});

describe("knownKeysAt: the keys the config schema knows at a path", () => {
  const cases: Array<[string, readonly (string | number)[], readonly string[]]> = [
    ["the top level", [], ["listen", "repair", "health_checks"]],
    ["through an optional section", ["repair"], ["repair_procedures", "max_concurrent_repairs", "pacing"]],
    ["through lists", ["repair", "repair_procedures", 0, "repair_operations", 0], ["operation", "success_command_timeout"]],
  ];
  for (const [name, path, some] of cases) {
    it(name, () => {
      const keys = knownKeysAt(configFileSchema, path);
      for (const key of some) assert.ok(keys.includes(key), `${key} in ${keys.join(", ")}`);
    });
  }
  it("a path that leads to no mapping: none", () => assert.deepEqual(knownKeysAt(configFileSchema, ["listen", "x"]), []));
});
