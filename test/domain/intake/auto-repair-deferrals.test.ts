import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { countSkipped } from "../../../src/domain/intake/skipped-bound.js";
import { skipsByKind, deferredMachines, deferralKey, summarizeDeferrals, type SkipOfPoll } from "../../../src/domain/intake/auto-repair-deferrals.js";
import { DEFERRED_KINDS, isDeferred, PASSED_KINDS, SKIP_KINDS, type SkipKind } from "../../../src/domain/intake/skip-kinds.js";

const skip = (kind: SkipKind, rack: number | null): SkipOfPoll => ({ kind, rack });

describe("skip kinds", () => {
  it("are either deferred or passed, never both", () => {
    assert.deepEqual([...DEFERRED_KINDS, ...PASSED_KINDS].sort(), [...SKIP_KINDS].sort());
    assert.deepEqual(SKIP_KINDS.filter(isDeferred), [...DEFERRED_KINDS]);
    // An operator's hold (`held`) vetoes the repair: a skip, not a deferral.
    assert.equal(isDeferred("held"), false);
    assert.equal(isDeferred("queue_limit"), true);
  });
});

describe("skipsByKind", () => {
  it("counts every kind, 0 for those absent", () => {
    const counts = skipsByKind(countSkipped([skip("rack_limit", 3), skip("rack_limit", 3), skip("no_address", 1)]));
    assert.deepEqual(counts, {
      rack_limit: 2,
      queue_limit: 0,
      rebooting: 0,
      out_of_cluster: 0,
      recently_repaired: 0,
      no_address: 1,
      invalid_address: 0,
      duplicate_address: 0,
      held: 0,
      escalated: 0,
    });
  });
});

describe("summarizeDeferrals, deferredMachines and deferralKey", () => {
  const cases: Array<[string, SkipOfPoll[], ReturnType<typeof summarizeDeferrals>, string]> = [
    ["nothing skipped: no deferral", [], [], ""],
    ["plain skips only: no deferral", [skip("recently_repaired", 1), skip("no_address", 2)], [], ""],
    [
      "racks over the limit, by rack ascending",
      [skip("rack_limit", 5), skip("rack_limit", 3), skip("rack_limit", 5)],
      [
        {
          kind: "rack_limit",
          machines: 3,
          racks: [
            { rack: 3, machines: 1 },
            { rack: 5, machines: 2 },
          ],
        },
      ],
      "rack_limit:3,5",
    ],
    [
      "every reason, in the order of DEFERRED_KINDS, racks named for each",
      [skip("rebooting", 2), skip("queue_limit", 1), skip("out_of_cluster", 4), skip("rack_limit", 7), skip("recently_repaired", 9)],
      [
        { kind: "rack_limit", machines: 1, racks: [{ rack: 7, machines: 1 }] },
        { kind: "queue_limit", machines: 1, racks: [{ rack: 1, machines: 1 }] },
        { kind: "rebooting", machines: 1, racks: [{ rack: 2, machines: 1 }] },
        { kind: "out_of_cluster", machines: 1, racks: [{ rack: 4, machines: 1 }] },
      ],
      "rack_limit:7 queue_limit rebooting out_of_cluster",
    ],
    [
      "unknown racks (outcomes kept before racks were) are counted, not named",
      [skip("queue_limit", null), skip("queue_limit", 2)],
      [{ kind: "queue_limit", machines: 2, racks: [{ rack: 2, machines: 1 }] }],
      "queue_limit",
    ],
  ];
  for (const [name, skipped, summary, key] of cases) {
    it(name, () => {
      assert.deepEqual(summarizeDeferrals(skipped), summary);
      assert.equal(deferralKey(summarizeDeferrals(skipped)), key);
      assert.equal(deferredMachines(summarizeDeferrals(skipped)), skipped.filter((s) => isDeferred(s.kind)).length);
    });
  }

  it("the key names the racks of the per-rack limit only: a reboot in another rack is the same deferral", () => {
    assert.equal(deferralKey(summarizeDeferrals([skip("rebooting", 1)])), deferralKey(summarizeDeferrals([skip("rebooting", 2), skip("rebooting", 3)])));
    assert.notEqual(deferralKey(summarizeDeferrals([skip("rack_limit", 1)])), deferralKey(summarizeDeferrals([skip("rack_limit", 2)])));
  });
});
