/** Polls `probe` every 100 ms until `done` holds; fails naming `what` and the last value after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await probe();
  }
  return last;
}
