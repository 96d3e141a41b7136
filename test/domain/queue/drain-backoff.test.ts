import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { drainBackoff, isBackedOff, isWaitingForBackoff } from "../../../src/domain/queue/drain-backoff.js";
import { SEC, T, entry, fixedRandom } from "./repair-decision-support.js";

describe("drainBackoff", () => {
  const cases: Array<[string, number, number, number]> = [
    // name, previous count, random, expected wait in seconds
    ["first back-off, lowest jitter: 300 s", 0, 0, 300],
    ["first back-off, highest jitter: just under 600 s", 0, 0.999999, 599],
    ["second back-off, highest jitter: just under 900 s", 1, 0.999999, 899],
    ["fifth back-off, middle jitter", 4, 0.5, 300 + 750],
    ["jitter is whole seconds", 0, 0.0049, 301],
  ];
  for (const [name, count, random, seconds] of cases) {
    it(name, () => {
      const after = drainBackoff(entry(1, { status: "processing", stepStatus: "draining", drainBackoffCount: count }), T, fixedRandom(random));
      assert.equal(after.drainBackoffCount, count + 1);
      assert.equal(after.drainBackoffExpire, T + seconds * SEC);
      assert.equal(after.status, "processing");
      assert.equal(after.stepStatus, "waiting");
      assert.equal(after.lastTransitionTime, T - 500);
    });
  }

  it("stays within [300, 300 + 300 n) seconds for n = 1..20 over many random values", () => {
    for (let previous = 0; previous < 20; previous++) {
      for (let i = 0; i < 200; i++) {
        const after = drainBackoff(entry(1, { drainBackoffCount: previous }), T, Math.random);
        const wait = ((after.drainBackoffExpire ?? 0) - T) / SEC;
        assert.ok(wait >= 300 && wait < 300 + 300 * after.drainBackoffCount, `wait ${wait} for n=${after.drainBackoffCount}`);
      }
    }
  });

  it("leaves the entry backed off, whatever the count, the jitter or the milliseconds of now", () => {
    for (const [count, random, ms] of [
      [0, 0, 0],
      [0, 0, 999],
      [3, 0.999999, 1],
      [19, 0.5, 500],
    ] as const) {
      const after = drainBackoff(entry(1, { status: "processing", stepStatus: "draining", drainBackoffCount: count }), T - 500 + ms, fixedRandom(random));
      assert.equal(isBackedOff(after), true, `count ${count}, random ${random}, ${ms} ms`);
    }
  });

  it("is waiting only while processing, waiting and unexpired", () => {
    const base = entry(1, { status: "processing", stepStatus: "waiting", drainBackoffExpire: T + 1 });
    assert.equal(isWaitingForBackoff(base, T), true);
    assert.equal(isWaitingForBackoff({ ...base, drainBackoffExpire: T }, T), false, "expired at exactly now");
    assert.equal(isWaitingForBackoff({ ...base, drainBackoffExpire: null }, T), false);
    assert.equal(isWaitingForBackoff({ ...base, stepStatus: "watching" }, T), false);
    assert.equal(isWaitingForBackoff({ ...base, status: "queued" }, T), false);
  });
});
