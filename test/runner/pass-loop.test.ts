import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PassLoop, type PassLoopOptions } from "../../src/runner/pass-loop.js";

/** A pass the test finishes by hand: each call is recorded with its trigger and waits for `finish`. */
function heldPasses<T>() {
  const calls: Array<{ trigger: T; signal: AbortSignal; finish: (result?: number | Error) => void }> = [];
  let running = 0;
  let maxRunning = 0;
  const waiters: Array<() => void> = [];
  const pass = (trigger: T, signal: AbortSignal) =>
    new Promise<number>((resolve, reject) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      calls.push({
        trigger,
        signal,
        finish: (result = 0) => {
          running--;
          if (result instanceof Error) reject(result);
          else resolve(result);
        },
      });
      for (const w of waiters.splice(0)) w();
    });
  return {
    pass,
    calls,
    get maxRunning() {
      return maxRunning;
    },
    /** Resolves once `n` passes have started. */
    async started(n: number) {
      while (calls.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return calls[n - 1] as (typeof calls)[number];
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function loopOf<T>(pass: PassLoopOptions<T, number>["pass"], extra: Partial<PassLoopOptions<T, number>> = {}) {
  const errors: unknown[] = [];
  const loop = new PassLoop<T, number>({ pass, now: Date.now, merge: (_a, b) => b, onError: (err) => errors.push(err), ...extra });
  return { loop, errors };
}

describe("PassLoop", () => {
  it("runs one pass for a request made while idle", async () => {
    const held = heldPasses<string>();
    const { loop } = loopOf(held.pass);
    loop.request("a");
    (await held.started(1)).finish();
    await loop.idle();
    assert.deepEqual(
      held.calls.map((c) => c.trigger),
      ["a"],
    );
    assert.equal(loop.passCount, 1);
  });

  it("folds requests made during a pass into one more pass, with the merged trigger", async () => {
    const held = heldPasses<string>();
    const { loop } = loopOf(held.pass, { merge: (a, b) => `${a}+${b}` });
    loop.request("first");
    const first = await held.started(1);
    loop.request("b");
    loop.request("c");
    loop.request("d");
    first.finish();
    (await held.started(2)).finish();
    await loop.idle();
    assert.deepEqual(
      held.calls.map((c) => c.trigger),
      ["first", "b+c+d"],
    );
    assert.equal(held.maxRunning, 1);
  });

  it("coalesces requests made in the same turn before the pass starts", async () => {
    const held = heldPasses<string>();
    const { loop } = loopOf(held.pass, { merge: (a, b) => `${a}+${b}` });
    loop.request("a");
    loop.request("b");
    (await held.started(1)).finish();
    await loop.idle();
    assert.deepEqual(
      held.calls.map((c) => c.trigger),
      ["a+b"],
    );
  });

  it("lets run wait for the running pass, then run its own and return the result", async () => {
    const held = heldPasses<string>();
    const { loop } = loopOf(held.pass);
    loop.request("requested");
    const first = await held.started(1);
    const result = loop.run("operator");
    await settle();
    assert.equal(held.calls.length, 1, "run must not overlap the running pass");
    first.finish(1);
    (await held.started(2)).finish(42);
    assert.equal(await result, 42);
    assert.deepEqual(
      held.calls.map((c) => c.trigger),
      ["requested", "operator"],
    );
    assert.equal(held.maxRunning, 1);
  });

  it("rejects run when its pass fails, and does not report that failure to onError", async () => {
    const held = heldPasses<string>();
    const { loop, errors } = loopOf(held.pass);
    const result = loop.run("operator");
    (await held.started(1)).finish(new Error("boom"));
    await assert.rejects(result, /boom/);
    assert.deepEqual(errors, []);
  });

  it("skips tryRun while a pass runs, and runs it when idle", async () => {
    const held = heldPasses<string>();
    const { loop } = loopOf(held.pass);
    const first = loop.tryRun("schedule");
    assert.notEqual(first, null);
    await held.started(1);
    assert.equal(loop.tryRun("schedule again"), null);
    held.calls[0]?.finish(7);
    assert.equal(await first, 7);
    assert.deepEqual(
      held.calls.map((c) => c.trigger),
      ["schedule"],
    );
  });

  it("reports a failed requested pass to onError and keeps serving requests", async () => {
    const held = heldPasses<string>();
    const { loop, errors } = loopOf(held.pass);
    loop.request("a");
    (await held.started(1)).finish(new Error("first failed"));
    await loop.idle();
    loop.request("b");
    (await held.started(2)).finish();
    await loop.idle();
    assert.equal((errors[0] as Error).message, "first failed");
    assert.equal(loop.passCount, 2);
  });

  it("waits in idle for a pass requested during the running one", async () => {
    const held = heldPasses<string>();
    const { loop } = loopOf(held.pass);
    loop.request("a");
    const first = await held.started(1);
    loop.request("b");
    let idle = false;
    const idled = loop.idle().then(() => (idle = true));
    first.finish();
    const second = await held.started(2);
    await settle();
    assert.equal(idle, false, "idle must wait for the requested pass too");
    second.finish();
    await idled;
  });

  it("aborts the signal on stop, waits for the running pass, and runs nothing more", async () => {
    const held = heldPasses<string>();
    const { loop } = loopOf(held.pass);
    loop.request("a");
    const first = await held.started(1);
    loop.request("queued before stop");
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    assert.equal(first.signal.aborted, true);
    await settle();
    assert.equal(stopped, false, "stop must wait for the running pass");
    first.finish();
    await stopping;
    loop.request("after stop");
    assert.equal(loop.tryRun("after stop"), null);
    await assert.rejects(loop.run("after stop"), /stopped/);
    await settle();
    assert.deepEqual(
      held.calls.map((c) => c.trigger),
      ["a"],
    );
  });
});

describe("PassLoop timer", () => {
  const cases: Array<{ name: string; nextAt: number | null; expectAfterMs: number }> = [
    { name: "at the interval when the pass names no time", nextAt: null, expectAfterMs: 1000 },
    { name: "at the time the pass names when it is sooner than the interval", nextAt: 250, expectAfterMs: 250 },
    { name: "at the interval when the pass names a later time", nextAt: 5000, expectAfterMs: 1000 },
    { name: "at once when the named time is already past", nextAt: -10, expectAfterMs: 0 },
  ];
  for (const c of cases) {
    it(`runs the next pass ${c.name}`, async (t) => {
      t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
      const starts: number[] = [];
      const loop = new PassLoop<string, number | null>({
        pass: async () => {
          starts.push(Date.now());
          return starts.length === 1 ? c.nextAt : null;
        },
        now: Date.now,
        merge: (_a, b) => b,
        onError: (err) => assert.fail(String(err)),
        timer: { trigger: "timer", intervalMs: 1000, nextAt: (r) => r },
      });
      loop.startTimer();
      loop.request("first");
      t.mock.timers.tick(0);
      await settleMocked();
      assert.deepEqual(starts, [0]);
      if (c.expectAfterMs > 0) {
        t.mock.timers.tick(c.expectAfterMs - 1);
        await settleMocked();
        assert.deepEqual(starts, [0], "not before its time");
      }
      t.mock.timers.tick(c.expectAfterMs === 0 ? 0 : 1);
      await settleMocked();
      assert.deepEqual(starts, [0, c.expectAfterMs]);
      await loop.stop();
    });
  }

  it("runs passes only when the pass names a time, with an infinite interval", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
    const results: Array<number | null> = [null, 5000, null];
    const starts: number[] = [];
    const loop = new PassLoop<string, number | null>({
      pass: async () => (starts.push(Date.now()), results[starts.length] ?? null),
      now: Date.now,
      merge: (_a, b) => b,
      onError: () => undefined,
      timer: { trigger: "timer", intervalMs: Infinity, nextAt: (r) => r },
    });
    loop.startTimer();
    loop.request("first");
    t.mock.timers.tick(0);
    await settleMocked();
    assert.deepEqual(starts, [0], "the first pass named 5000");
    t.mock.timers.tick(5000);
    await settleMocked();
    assert.deepEqual(starts, [0, 5000]);
    t.mock.timers.tick(10 ** 9);
    await settleMocked();
    assert.deepEqual(starts, [0, 5000], "a pass that names no time is not followed by one");
    await loop.stop();
  });

  it("runs no timed pass before startTimer", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
    let passes = 0;
    const loop = new PassLoop<string, null>({
      pass: async () => (passes++, null),
      now: Date.now,
      merge: (_a, b) => b,
      onError: () => undefined,
      timer: { trigger: "timer", intervalMs: 100 },
    });
    loop.request("one");
    t.mock.timers.tick(0);
    await settleMocked();
    t.mock.timers.tick(1000);
    await settleMocked();
    assert.equal(passes, 1);
    await loop.stop();
  });
});

/** Lets promise callbacks run while setTimeout is mocked (setImmediate is not). */
async function settleMocked(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
