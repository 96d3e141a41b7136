import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Registry } from "../../src/graphql/prom-client.js";
import { delaySeconds, EVENT_LOOP_SAMPLE_MS, registerEventLoopDelay } from "../../src/graphql/event-loop-delay.js";
import { parsePrometheus, sampleValue } from "../support/prometheus-text.js";
import { until } from "../support/until.js";

describe("kintsugi_event_loop_delay_seconds", () => {
  for (const { name, recordedMs, seconds } of [
    { name: "a timer run on time is no delay", recordedMs: EVENT_LOOP_SAMPLE_MS, seconds: 0 },
    { name: "a timer run early is no delay", recordedMs: EVENT_LOOP_SAMPLE_MS - 1, seconds: 0 },
    { name: "the lateness past the sampling interval", recordedMs: EVENT_LOOP_SAMPLE_MS + 250, seconds: 0.25 },
  ]) {
    it(name, () => assert.equal(delaySeconds(recordedMs * 1e6), seconds));
  }

  it("serves the window's max and p99 as at least a block of the loop, and restarts the window at each scrape", async () => {
    const registry = new Registry();
    const sampler = registerEventLoopDelay(registry);
    try {
      // One sample before the block, so the window holds the timer the block delays.
      await until("the sampler has a sample", () => sampler.count > 0);
      const samplesBefore = sampler.count;
      const blockedFrom = performance.now();
      while (performance.now() - blockedFrom < 120);
      await until("the sampler has sampled the block", () => sampler.count > samplesBefore);
      const { samples } = parsePrometheus(await registry.metrics());
      for (const stat of ["max", "p99"]) assert.ok(sampleValue(samples, "kintsugi_event_loop_delay_seconds", { stat })! >= 0.1, stat);
      // Scraped again with no timer run in between: the window restarted, empty.
      const again = parsePrometheus(await registry.metrics());
      for (const stat of ["p50", "p99", "max"]) assert.equal(sampleValue(again.samples, "kintsugi_event_loop_delay_seconds", { stat }), 0, stat);
    } finally {
      sampler.disable();
    }
  });
});
