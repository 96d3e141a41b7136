import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startDemoClock } from "../../scripts/demo/demo-clock.js";
import { T } from "../domain/queue/repair-decision-support.js";

// The clock's timer fires every 10 ms of the (mocked) timers; between firings the wall clock moves by each gap.
describe("startDemoClock", () => {
  const cases: Array<{ name: string; gaps: number[]; stalled: number }> = [
    { name: "ticks on time keep the wall's pace", gaps: [10, 10, 10], stalled: 0 },
    { name: "a tick up to 2 ms late is jitter, not a stall", gaps: [11, 12, 10], stalled: 0 },
    { name: "a tick 40 ms late: the 38 ms past the jitter are not counted", gaps: [10, 50, 10], stalled: 38 },
    { name: "stalls add up", gaps: [112, 10, 1012], stalled: 100 + 1000 },
  ];
  for (const { name, gaps, stalled } of cases)
    it(name, (t) => {
      t.mock.timers.enable({ apis: ["setInterval"] });
      let wall = T;
      const clock = startDemoClock(() => wall);
      try {
        let last = clock.now();
        for (const gap of gaps) {
          // The wall clock runs on while the process is starved; the demo clock stops at the next tick's time.
          wall += gap;
          const before = clock.now();
          assert.ok(before >= last && before <= last + 12, `between ticks ${before - T} after ${last - T}`);
          t.mock.timers.tick(10);
          last = clock.now();
          assert.ok(last >= before, `a tick never sets the clock back: ${last - T} after ${before - T}`);
        }
        assert.equal(clock.stalledMs(), stalled);
        assert.equal(clock.now(), wall - stalled);
      } finally {
        clock.stop();
      }
    });

  it("keeps the wall clock's pace by default, from the real Date.now", () => {
    const clock = startDemoClock();
    try {
      assert.ok(Math.abs(clock.now() - Date.now()) < 50);
    } finally {
      clock.stop();
    }
  });
});
