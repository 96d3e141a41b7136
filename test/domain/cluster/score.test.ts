import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lifetimeDays, lifetimeScore, pickHighest, pickLowest, rackScore, removalScore, selectionScore } from "../../../src/domain/cluster/score.js";
import { DAY, NOW, machine } from "./support.js";

describe("lifetime", () => {
  const days: Array<[string, number, number]> = [
    ["exactly 250 days (strict >)", 250 * DAY, 250],
    ["250 days and 23 hours truncates to 250", 250 * DAY + 23 * 3600_000, 250],
    ["-250 days and 23 hours truncates toward zero to -250", -(250 * DAY + 23 * 3600_000), -250],
    ["a few hours ago is 0 days", -3 * 3600_000, 0],
  ];
  for (const [name, offset, want] of days) {
    it(`lifetimeDays: ${name}`, () => assert.equal(lifetimeDays({ retireDate: NOW + offset }, NOW), want));
  }
  const scores: Array<[number, number]> = [
    [0, 0],
    [249, 0],
    [250, 0],
    [251, 1],
    [499, 1],
    [500, 1],
    [501, 2],
    [999, 2],
    [1000, 2],
    [1001, 3],
    [5000, 3],
    [-249, 0],
    [-250, 0],
    [-251, -1],
    [-499, -1],
    [-500, -1],
    [-501, -2],
    [-999, -2],
    [-1000, -2],
    [-1001, -3],
    [-5000, -3],
  ];
  for (const [d, want] of scores) it(`lifetimeScore(${d}) is ${want}`, () => assert.equal(lifetimeScore(d), want));
});

describe("selection and removal scores", () => {
  it("rack spread: each machine of the same group already in the rack costs 10", () => {
    assert.equal(rackScore(0), 1000);
    assert.equal(rackScore(3), 970);
    const m = machine("s1", { retireDate: NOW + 600 * DAY });
    assert.equal(selectionScore(m, 0, NOW), 1002);
    assert.equal(selectionScore(m, 2, NOW), 982);
  });

  it("rack spread beats lifetime: a machine in an empty rack wins over a newer one in a used rack", () => {
    const used = machine("s1", { rack: 1, retireDate: NOW + 2000 * DAY });
    const empty = machine("s2", { rack: 2, retireDate: NOW - 2000 * DAY });
    assert.equal(pickHighest([used, empty], new Map([[1, 1]]), NOW), empty);
  });

  it("newer machines (longer lifetime) are preferred within a rack", () => {
    const old = machine("s1", { retireDate: NOW + 100 * DAY });
    const young = machine("s2", { retireDate: NOW + 1500 * DAY });
    assert.equal(pickHighest([old, young], new Map(), NOW), young);
  });

  it("ties are broken by serial, whatever the input order", () => {
    const a = machine("s1");
    const b = machine("s2");
    assert.equal(pickHighest([b, a], new Map(), NOW), a);
    assert.equal(pickLowest([b, a], new Map(), NOW), a);
  });

  it("health bonus for removal: +1000 for HEALTHY, so an unhealthy node goes first even in an emptier rack", () => {
    const healthy = machine("s1", { rack: 1 });
    const sick = machine("s2", { rack: 2, state: "UNHEALTHY" });
    assert.equal(removalScore(healthy, 0, NOW) - removalScore(machine("s1", { rack: 1, state: "UNHEALTHY" }), 0, NOW), 1000);
    assert.equal(
      pickLowest(
        [healthy, sick],
        new Map([
          [1, 5],
          [2, 1],
        ]),
        NOW,
      ),
      sick,
    );
  });

  it("removal among healthy nodes: the crowded rack, then the shorter lifetime, goes first", () => {
    const crowded = machine("s1", { rack: 1 });
    const alone = machine("s2", { rack: 2 });
    assert.equal(
      pickLowest(
        [alone, crowded],
        new Map([
          [1, 3],
          [2, 1],
        ]),
        NOW,
      ),
      crowded,
    );
    const old = machine("s3", { rack: 2, retireDate: NOW - 600 * DAY });
    assert.equal(pickLowest([alone, old], new Map([[2, 2]]), NOW), old);
  });
});
