import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEMO_TIMINGS, wallTimings } from "../../scripts/demo/timings.js";

describe("DEMO_TIMINGS", () => {
  it("a repaired machine stays healthy longer than its finished entry can stay in the queue (a cleanup, then a poll)", () => {
    assert.ok(DEMO_TIMINGS.coolDownSeconds > DEMO_TIMINGS.cleanupEverySeconds + DEMO_TIMINGS.sabakanPollSeconds);
  });

  it("the power cut ends, and the flap comes, within one cycle", () => {
    assert.ok(DEMO_TIMINGS.powerCutAtSeconds + DEMO_TIMINGS.powerOutageSeconds < DEMO_TIMINGS.cycleSeconds);
    assert.ok(DEMO_TIMINGS.flapAtSeconds < DEMO_TIMINGS.cycleSeconds);
  });
});

describe("wallTimings", () => {
  const cases: Array<[string, number, { breakMs: number; runnerSeconds: number; schedule: string }]> = [
    ["the real demo", 1, { breakMs: 8000, runnerSeconds: 2, schedule: "*/10 * * * * *" }],
    ["--fast", 0.2, { breakMs: 1600, runnerSeconds: 0.4, schedule: "*/2 * * * * *" }],
    ["the long-run test's scale: polls at most once a second (cron)", 0.02, { breakMs: 160, runnerSeconds: 0.04, schedule: "*/1 * * * * *" }],
    ["slow motion: polls every 100 s", 10, { breakMs: 80_000, runnerSeconds: 20, schedule: "0 */2 * * * *" }],
  ];
  for (const [name, scale, expected] of cases) {
    it(name, () => {
      const t = wallTimings(scale);
      assert.deepEqual(
        { breakMs: Math.round(t.ms("breakEverySeconds")), runnerSeconds: Number(t.seconds("runnerIntervalSeconds").toFixed(6)), schedule: t.sabakanSchedule },
        expected,
      );
    });
  }

  for (const scale of [0, -1, 0.0009, 11, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`refuses scale ${scale}`, () => assert.throws(() => wallTimings(scale), /^Error: scale must be a number from 0\.001 to 10/));
  }
});

describe("DEMO_TIMINGS: the incidents of a cycle", () => {
  it("every incident comes within the cycle, so 10 minutes show each of them at least once", () => {
    const T = DEMO_TIMINGS;
    for (const at of [
      T.nodeNotReadyAtSeconds,
      T.drainRefusedAtSeconds,
      T.powerCutAtSeconds,
      T.flapAtSeconds,
      T.controlPlanesFailAtSeconds,
      T.repairFailsAtSeconds,
      T.constraintChangeAtSeconds,
    ]) {
      assert.ok(at < T.cycleSeconds, `${at} s is within the ${T.cycleSeconds} s cycle`);
    }
  });

  it("the failed repair comes after the control planes, and is looked at well before the next cycle's kubelets", () => {
    const T = DEMO_TIMINGS;
    assert.ok(T.repairFailsAtSeconds > T.controlPlanesFailAtSeconds);
    // About 30 s to fail (a drain, two attempts), the operator's look and fix, a runner pass to dequeue the entry:
    // the rack is quiet again 20 s or more before its kubelets stop.
    assert.ok(T.repairFailsAtSeconds + 30 + T.bmcReseatedAfterSeconds + 10 <= T.cycleSeconds + T.nodeNotReadyAtSeconds - 20);
    // The rack goes quiet after the control planes failed: they fail in two other racks, or wait for it to.
    assert.ok(T.repairFailsAtSeconds - T.failureRackQuietForSeconds > T.controlPlanesFailAtSeconds);
  });

  it("a machine that breaks on its own is never escalated: its repairs are more than half the escalation window apart", () => {
    // Escalation holds a machine with 2 repairs created within the window; the chaos breaks a repaired machine only
    // after the cool-down, so two earlier repairs of it never fit in one window.
    assert.ok(2 * DEMO_TIMINGS.coolDownSeconds > DEMO_TIMINGS.escalationWindowSeconds);
  });

  it("the flapping machine's third entry falls within the escalation window of its first, with time for its repair", () => {
    // From its first entry: at most flapEntryMaxAgeSeconds to its flap, then two clean-ups and two polls at most, and
    // what is left for its second repair.
    const T = DEMO_TIMINGS;
    const left = T.escalationWindowSeconds - T.flapEntryMaxAgeSeconds - 2 * (T.cleanupEverySeconds + T.sabakanPollSeconds);
    assert.ok(left >= T.repairCommandSeconds + T.rebootWatchSeconds + 2 * T.runnerIntervalSeconds, `${left} s for the second repair`);
  });
});
