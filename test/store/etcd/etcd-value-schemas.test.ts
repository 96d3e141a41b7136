import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generationValue, outcomeValue } from "../../../src/store/core/value-schemas.js";
import { generationFromStored } from "../../../src/store/core/store-values.js";
import { NOW } from "../../support/fixtures.js";

const value = (skipped: unknown[]) => ({
  v: 1,
  outcome: { sequence: 1, time: NOW, trigger: "schedule", machinesSeen: 2, enqueued: [], skipped, shortCircuit: null, error: null },
});

describe("outcomeValue (a poll outcome as kept in etcd)", () => {
  const cases: Array<[string, unknown, unknown]> = [
    [
      "a skip with its kind and rack keeps them",
      { serial: "s1", address: "10.0.0.1", state: "UNREACHABLE", reason: "rebooting", kind: "rebooting", rack: 4 },
      { serial: "s1", address: "10.0.0.1", state: "UNREACHABLE", reason: "rebooting", kind: "rebooting", rack: 4 },
    ],
    [
      "a skip kept before kinds and racks: the kind read from the reason, no rack",
      { serial: "s1", address: "10.0.0.1", state: "UNREACHABLE", reason: "out of cluster, may be rebooting" },
      { serial: "s1", address: "10.0.0.1", state: "UNREACHABLE", reason: "out of cluster, may be rebooting", kind: "out_of_cluster", rack: null },
    ],
  ];
  for (const [name, skip, expected] of cases) it(name, () => assert.deepEqual(outcomeValue.parse(value([skip])).outcome.skipped, [expected]));

  it("refuses a kind kintsugi does not know, naming where", () => {
    const parsed = outcomeValue.safeParse(value([{ serial: "s1", address: null, state: "UNHEALTHY", reason: "x", kind: "whatever", rack: 1 }]));
    assert.equal(parsed.success, false);
    assert.deepEqual(parsed.error?.issues[0]?.path, ["outcome", "skipped", 0, "kind"]);
  });
});

describe("outcomeValue's skipped counts", () => {
  const held = { serial: "s1", address: null, state: "UNHEALTHY", reason: "held", kind: "held", rack: 1 };
  const withCounts = (counts: unknown) => ({ ...value([held]), outcome: { ...value([held]).outcome, skippedCounts: counts } });
  it("reads a value without counts (written before the list was bounded) as whole", () =>
    assert.equal(outcomeValue.parse(value([held])).outcome.skippedCounts, undefined));
  it("keeps consistent counts", () =>
    assert.deepEqual(outcomeValue.parse(withCounts({ total: 9, byKind: [{ kind: "held", machines: 9 }] })).outcome.skippedCounts, {
      total: 9,
      byKind: [{ kind: "held", machines: 9 }],
    }));
  const refused: Array<[string, unknown, RegExp]> = [
    ["kinds that do not sum to the total", { total: 10, byKind: [{ kind: "held", machines: 9 }] }, /sum to 9, not the total 10/],
    ["a listed kind missing from the counts", { total: 9, byKind: [{ kind: "no_address", machines: 9 }] }, /1 held skips are listed, more than their count 0/],
    ["a negative total", { total: -1, byKind: [] }, /too small|>=0/],
    ["an unknown kind", { total: 1, byKind: [{ kind: "whatever", machines: 1 }] }, /Invalid option|expected one of/],
  ];
  for (const [name, counts, message] of refused) {
    it(`refuses ${name}, naming where`, () => {
      const parsed = outcomeValue.safeParse(withCounts(counts));
      assert.equal(parsed.success, false);
      assert.match(parsed.error?.issues[0]?.message ?? "", message);
      assert.deepEqual(parsed.error?.issues[0]?.path.slice(0, 2), ["outcome", "skippedCounts"]);
    });
  }
});

describe("generationValue's policy", () => {
  const record = (policy?: unknown) => ({
    v: 1,
    record: {
      sequence: 1,
      time: NOW,
      lastTime: NOW,
      repeats: 1,
      trigger: "schedule",
      generation: 0,
      cluster: null,
      changes: [],
      error: "broken",
      ...(policy !== undefined && { policy }),
    },
  });
  const cases: Array<[string, unknown, string]> = [
    ["a record written before records named their policy reads as weighted", undefined, "weighted"],
    ["weighted", "weighted", "weighted"],
    ["all_healthy", "all_healthy", "all_healthy"],
  ];
  for (const [name, policy, expected] of cases)
    it(name, () => assert.equal(generationFromStored(generationValue.parse(record(policy)).record).policy, expected));
  it("refuses a policy kintsugi does not know", () => assert.equal(generationValue.safeParse(record("random")).success, false));
});
