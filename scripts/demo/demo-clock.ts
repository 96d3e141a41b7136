/** How often the clock looks at its process's event loop, in milliseconds of the wall clock. */
const TICK_MS = 10;
/** Lateness of a tick up to this is the event loop's ordinary jitter, not a stall: the clock keeps the wall's pace. */
const JITTER_MS = 2;

/** The demo's clock: the wall clock, less the time its process could not run. */
export interface DemoClock {
  /** Milliseconds since the epoch, as kintsugi, sabakan and the Kubernetes API of the demo see them. */
  now(): number;
  /** Stops its timer. */
  stop(): void;
  /** How long the clock has stood still so far, in milliseconds of the wall clock. */
  stalledMs(): number;
}

/**
 * A clock for the simulated data center that stands still while the demo's process is starved of CPU. kintsugi, the
 * fake sabakan, the fake Kubernetes API and the scenario all run in that one process, on one event loop: on a loaded
 * machine a 10-second repair takes kintsugi far longer on the wall clock, while the scenario, on the wall clock, would
 * race on and break machines, cut power and end its 10 minutes before kintsugi has told its story. Here the time
 * a timer fires late (the event loop was busy or the process not scheduled) is not counted, so every part of the
 * world, kintsugi's watch windows and escalation window included, sees the same slower time and the story stays
 * what it is on a quiet machine, only slower. On a quiet machine the clock keeps the wall's pace.
 */
export function startDemoClock(wallNow: () => number = Date.now): DemoClock {
  let stalled = 0;
  let lastTick = wallNow();
  const timer = setInterval(() => {
    const wall = wallNow();
    const late = wall - lastTick - TICK_MS;
    if (late > JITTER_MS) stalled += late - JITTER_MS;
    lastTick = wall;
  }, TICK_MS);
  timer.unref();
  return {
    // Between ticks the clock runs at most to the next tick's time: a stall found at the tick then never sets it back.
    now: () => Math.min(wallNow(), lastTick + TICK_MS + JITTER_MS) - stalled,
    stop: () => clearInterval(timer),
    stalledMs: () => stalled,
  };
}
