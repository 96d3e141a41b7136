/**
 * The longest pause between probes, reached after 3.6 s of waiting: a wait that long is for a timer of the system
 * under test (a lease, a command's timeout, a back-off), and probing it every 10 ms cost the servers it asks (often
 * another process: a replica, etcd) a hundred requests a second for nothing.
 */
const SLOWEST_MS = 100;
/** The pause between probes: 10 ms at first, longer as the wait goes on, at most {@link SLOWEST_MS}. */
const pauseAfter = (waitedMs: number) => Math.min(SLOWEST_MS, 10 + Math.floor(waitedMs / 40));

/**
 * Polls `probe` until `done` holds of its value (by default: until the value is truthy) and returns that value;
 * fails naming `what` and the last value after `timeoutMs` (generous: it only bounds a broken test), with what
 * `diagnose` says when given. The one polling loop of the tests: wait with it, never with a sleep or a loop of one's own.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T> | T,
  done: (v: T) => boolean = Boolean,
  timeoutMs = 20_000,
  diagnose?: () => string,
): Promise<T> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let last: T = await probe();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}: ${JSON.stringify(last)}${diagnose ? `\n${diagnose()}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, pauseAfter(Date.now() - started)));
    last = await probe();
  }
  return last;
}

/** {@link until} the probe's value is truthy, returned without its falsy cases. */
export async function untilTruthy<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  return (await until(what, probe, Boolean, timeoutMs)) as T;
}
