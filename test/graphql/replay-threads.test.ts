import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { GraphQLError } from "graphql";
import { ReplayThreads, type ReplayWorkerInput } from "../../src/graphql/replay/replay-threads.js";
import { until } from "../support/until.js";

// ReplayThreads with a worker that never answers and never yields (test/support/never-answering-worker.mjs), counting
// in a shared buffer while it runs: a stopped replay is told from one that ran to its end without a clock, and a
// terminated thread from one left spinning by the count that stops moving.
const NEVER_ANSWERS = new URL("../support/never-answering-worker.mjs", import.meta.url);

const packed = () => ({ bytes: new Uint8Array(8), ends: [], times: [], unreadable: 0 });
const input = (beats = new SharedArrayBuffer(4)): ReplayWorkerInput => ({
  job: { beats } as unknown as ReplayWorkerInput["job"],
  polls: packed(),
  remediations: packed(),
});

/** Whether `threads` admits a replay now: one that is refused for another running says so at once. */
async function admits(threads: ReplayThreads): Promise<boolean> {
  const probe = new AbortController();
  const run = threads.run(async () => input(), probe.signal);
  probe.abort();
  const err = (await run.then(
    () => null,
    (e: unknown) => e,
  )) as GraphQLError | null;
  return !/another replay is running/.test(err?.message ?? "");
}

describe("ReplayThreads", () => {
  const cases: ReadonlyArray<{ name: string; budgetSeconds: number; stop: (client: AbortController) => void; says: RegExp }> = [
    {
      name: "a replay whose client goes away has its worker terminated, and frees the slot",
      budgetSeconds: 600,
      stop: (client) => client.abort(),
      says: /^the replay was stopped: its client went away$/,
    },
    {
      name: "a replay past limits.replay_seconds has its worker terminated, frees the slot, and says which limit",
      budgetSeconds: 0.2,
      stop: () => undefined,
      says: /did not finish within 0\.2 s \(limits\.replay_seconds\) and was stopped/,
    },
  ];
  for (const c of cases)
    it(c.name, async () => {
      const threads = new ReplayThreads(c.budgetSeconds, NEVER_ANSWERS);
      const client = new AbortController();
      const beats = new SharedArrayBuffer(4);
      const count = () => Atomics.load(new Int32Array(beats), 0);
      const running = threads.run(async () => input(beats), client.signal);
      const outcome = running.then(
        () => null,
        (e: unknown) => e as Error,
      );
      await until("the worker runs", count, (n) => n > 0);
      assert.equal(await admits(threads), false, "a second replay is refused while the first runs");
      c.stop(client);
      assert.match((await outcome)?.message ?? "answered", c.says);
      await until("the slot is free again", () => admits(threads));
      // The worker never ends by itself: its count stops only when the thread was terminated.
      let last = -1;
      await until("the worker's count stops", () => {
        const [before, now] = [last, count()];
        last = now;
        return before === now;
      });
    });
});
