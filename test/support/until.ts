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
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}: ${JSON.stringify(last)}${diagnose ? `\n${diagnose()}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    last = await probe();
  }
  return last;
}

/** {@link until} the probe's value is truthy, returned without its falsy cases. */
export async function untilTruthy<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  return (await until(what, probe, Boolean, timeoutMs)) as T;
}
