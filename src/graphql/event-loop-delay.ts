import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { Gauge, type Registry } from "./prom-client.js";

/** How often the loop is sampled: a timer of this period, whose lateness is the delay. */
export const EVENT_LOOP_SAMPLE_MS = 10;

/** The statistics served, each as a `stat` label of kintsugi_event_loop_delay_seconds. */
export const EVENT_LOOP_DELAY_STATS = ["p50", "p99", "max"] as const;

/**
 * The lateness (seconds) of a sample that took `recordedNs` (the histogram records the whole period, the sampling
 * interval included): zero for a loop that ran the timer on time.
 */
export function delaySeconds(recordedNs: number): number {
  return Math.max(0, recordedNs / 1e6 - EVENT_LOOP_SAMPLE_MS) / 1000;
}

/**
 * `kintsugi_event_loop_delay_seconds{stat}`: how late this process's event loop ran a 10 ms timer since the previous
 * scrape (p50, p99, max), which is how long synchronous work kept every request (and /health) waiting. Each scrape
 * reads and then restarts the window, as prom-client's nodejs_eventloop_lag_* do; with no sample in the window (a
 * scrape right after another) every statistic is 0. Returns the sampler, for `close`.
 */
export function registerEventLoopDelay(registry: Registry): IntervalHistogram {
  const sampled = monitorEventLoopDelay({ resolution: EVENT_LOOP_SAMPLE_MS });
  sampled.enable();
  new Gauge({
    name: "kintsugi_event_loop_delay_seconds",
    help: `How late the event loop ran a ${EVENT_LOOP_SAMPLE_MS} ms timer since the previous scrape (stat: p50, p99, max)`,
    labelNames: ["stat"],
    registers: [registry],
    collect() {
      const counted = sampled.count > 0;
      const of = { p50: sampled.percentile(50), p99: sampled.percentile(99), max: sampled.max };
      for (const stat of EVENT_LOOP_DELAY_STATS) this.set({ stat }, counted ? delaySeconds(of[stat]) : 0);
      sampled.reset();
    },
  });
  return sampled;
}
