import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { entryValue } from "../../src/store/core/value-schemas.js";
import { parseStoredEvidence } from "../../src/store/kv/sqlite/old-tables/sqlite-snapshot-export.js";
import { NOW } from "../support/fixtures.js";
import { EVIDENCE } from "./conformance/evidence-cases.js";
import { newEntry } from "./conformance/store-harness.js";

const value = (evidence: unknown) => ({ v: 1, entry: { ...newEntry("10.0.0.1"), index: 1, evidence } });

describe("the proof of repair evidence as the stores keep it", () => {
  it("an etcd entry value keeps valid evidence, and one without evidence has none", () => {
    assert.deepEqual(entryValue.parse(value(EVIDENCE)).entry.evidence, EVIDENCE);
    assert.equal("evidence" in entryValue.parse({ v: 1, entry: { ...newEntry("10.0.0.1"), index: 1 } }).entry, false);
  });

  const hostile: Array<[string, unknown, RegExp, string]> = [
    ["not an object", "proven", /expected object/i, ""],
    ["a negative dwell count", { ...EVIDENCE, dwellStarts: -1 }, /Too small|>=\s*0/i, "dwellStarts"],
    ["a signal kintsugi does not know", { ...EVIDENCE, since: { pingable: NOW } }, /unrecognized key/i, "since"],
    ["a boot ID of a megabyte", { ...EVIDENCE, bootIdAfter: "x".repeat(1 << 20) }, /Too big|<=\s*256/i, "bootIdAfter"],
    ["a time that is not a number", { ...EVIDENCE, provenAt: "yesterday" }, /expected number/i, "provenAt"],
  ];
  for (const [name, evidence, message, path] of hostile) {
    it(`refuses evidence that is ${name}, naming where (etcd value and SQLite column alike)`, () => {
      const parsed = entryValue.safeParse(value(evidence));
      assert.equal(parsed.success, false);
      assert.equal(parsed.error?.issues[0]?.path.slice(0, path === "" ? 2 : 3).join("."), ["entry", "evidence", path].filter((p) => p !== "").join("."));
      assert.throws(
        () => parseStoredEvidence(JSON.stringify(evidence), "repair entry 7"),
        (err: Error) => {
          assert.match(err.message, /^repair entry 7: its proof of repair evidence is invalid/);
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }

  it("refuses SQLite evidence that is not JSON, naming the entry", () => {
    assert.throws(() => parseStoredEvidence("{proven", "repair entry 3"), /^Error: repair entry 3: its proof of repair evidence is not JSON/);
  });

  it("reads back what it stored, whatever order the fields were written in", () => {
    const { step, since: _since, ...rest } = EVIDENCE;
    const reordered = JSON.stringify({ since: { boot_id_changed: NOW + 10, health_check: NOW + 10, node_ready: NOW + 20 }, ...rest, step });
    assert.deepEqual(parseStoredEvidence(reordered, "repair entry 1"), EVIDENCE);
  });
});
