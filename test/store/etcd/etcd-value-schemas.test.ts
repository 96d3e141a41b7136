import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { outcomeValue } from "../../../src/store/etcd/etcd-value-schemas.js";
import { NOW } from "../../support/fixtures.js";

const value = (skipped: unknown[]) => ({ v: 1, outcome: { sequence: 1, time: NOW, trigger: "schedule", machinesSeen: 2, enqueued: [], skipped, shortCircuit: null, error: null } });

describe("outcomeValue (a poll outcome as kept in etcd)", () => {
  const cases: Array<[string, unknown, unknown]> = [
    ["a skip with its kind and rack keeps them", { serial: "s1", address: "10.0.0.1", state: "UNREACHABLE", reason: "rebooting", kind: "rebooting", rack: 4 },
      { serial: "s1", address: "10.0.0.1", state: "UNREACHABLE", reason: "rebooting", kind: "rebooting", rack: 4 }],
    ["a skip kept before kinds and racks: the kind read from the reason, no rack", { serial: "s1", address: "10.0.0.1", state: "UNREACHABLE", reason: "out of cluster, may be rebooting" },
      { serial: "s1", address: "10.0.0.1", state: "UNREACHABLE", reason: "out of cluster, may be rebooting", kind: "out_of_cluster", rack: null }],
  ];
  for (const [name, skip, expected] of cases) it(name, () => assert.deepEqual(outcomeValue.parse(value([skip])).outcome.skipped, [expected]));

  it("refuses a kind kintsugi does not know, naming where", () => {
    const parsed = outcomeValue.safeParse(value([{ serial: "s1", address: null, state: "UNHEALTHY", reason: "x", kind: "whatever", rack: 1 }]));
    assert.equal(parsed.success, false);
    assert.deepEqual(parsed.error?.issues[0]?.path, ["outcome", "skipped", 0, "kind"]);
  });
});
