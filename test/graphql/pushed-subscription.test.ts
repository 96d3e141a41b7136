import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ExecutionResult } from "graphql";
import { PubSub } from "../../src/graphql/pubsub.js";
import { ENDED, pushedSubscription, type PushedResults, type PushedSubscription } from "../../src/graphql/pushed-subscription.js";

type Topics = { said: number };

/** A settable promise, for results that wait (a join). */
function later<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const result = (n: number): ExecutionResult => ({ data: { said: n } });
const flush = () => new Promise((resolve) => setImmediate(resolve));

/** A pubsub, one pushed subscription to `said` and what its sink was handed. */
function world(options: { results?: Partial<PushedResults>; refuseAt?: number; keep?: (n: number) => boolean } = {}) {
  const pubsub = new PubSub<Topics>();
  const sent: number[] = [];
  const source = pubsub.subscribe("said", options.keep);
  const results: PushedResults = { resultFor: (n) => result(n as number), maxWaiting: 3, behind: () => new Error("fell behind"), ...options.results };
  const pushed = pushedSubscription(source, results, {
    next: (r) => {
      const n = (r.data as { said: number }).said;
      if (n === options.refuseAt) return new Error(`refused ${n}`);
      sent.push(n);
      return null;
    },
  }) as PushedSubscription;
  assert.ok(pushed, "a pubsub stream is pushed");
  // graphql-ws waits on the stream's next() from the start.
  const ended = pushed.stream.next();
  ended.catch(() => undefined);
  return { pubsub, sent, pushed, ended };
}

describe("pushedSubscription (events written as published, not iterated one by one)", () => {
  it("hands each event's result to the sink as it is published, in order, and its stream yields nothing", async () => {
    const { pubsub, sent, pushed, ended } = world();
    for (let i = 0; i < 5; i++) pubsub.publish("said", i);
    assert.deepEqual(sent, [0, 1, 2, 3, 4], "synchronously, before any promise runs");
    await pushed.stream.return?.();
    assert.deepEqual(await ended, { value: undefined, done: true });
    assert.equal(pubsub.count("said"), 0, "the source is let go");
    pubsub.publish("said", 9);
    assert.deepEqual(sent, [0, 1, 2, 3, 4]);
  });

  it("hands on the events the source held before it was pushed, first", async () => {
    const pubsub = new PubSub<Topics>();
    const source = pubsub.subscribe("said");
    pubsub.publish("said", 1);
    pubsub.publish("said", 2);
    const sent: number[] = [];
    const results: PushedResults = { resultFor: (n) => result(n as number), maxWaiting: 3, behind: () => new Error("x") };
    pushedSubscription(source, results, { next: (r) => (sent.push((r.data as { said: number }).said), null) });
    pubsub.publish("said", 3);
    assert.deepEqual(sent, [1, 2, 3]);
  });

  it("keeps event order when a result waits: the ones after it wait for it", async () => {
    const waits = later<ExecutionResult>();
    const { pubsub, sent } = world({ results: { resultFor: (n) => (n === 1 ? waits.promise : result(n as number)) } });
    for (let i = 0; i < 4; i++) pubsub.publish("said", i);
    assert.deepEqual(sent, [0]);
    waits.resolve(result(1));
    await flush();
    assert.deepEqual(sent, [0, 1, 2, 3]);
    pubsub.publish("said", 4);
    assert.deepEqual(sent, [0, 1, 2, 3, 4], "at once again once nothing waits");
  });

  it("lets the subscriptions waiting on one shared result hear it settle through one reaction to it, each in event order", async () => {
    // A promise that counts the reactions attached to it.
    let reactions = 0;
    class Counted<T> extends Promise<T> {
      override then<A = T, B = never>(ok?: ((v: T) => A | PromiseLike<A>) | null, fail?: ((e: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
        reactions++;
        return super.then(ok, fail);
      }
    }
    const waits = later<ExecutionResult>();
    const shared = new Counted<ExecutionResult>((resolve) => void waits.promise.then(resolve));
    const pubsub = new PubSub<Topics>();
    const sent: string[] = [];
    for (const name of ["a", "b", "c"]) {
      const results: PushedResults = { resultFor: (n) => (n === 1 ? shared : result(n as number)), maxWaiting: 3, behind: () => new Error("x") };
      pushedSubscription(pubsub.subscribe("said"), results, { next: (r) => (sent.push(`${name}${(r.data as { said: number }).said}`), null) });
    }
    for (const n of [0, 1, 2]) pubsub.publish("said", n);
    const attached = reactions;
    waits.resolve(result(1));
    await flush();
    assert.equal(attached, 1, "one reaction for the three subscriptions");
    assert.deepEqual(sent, ["a0", "b0", "c0", "a1", "a2", "b1", "b2", "c1", "c2"]);
  });

  it("ends as done, letting the source go and sending nothing more, when the sink says its connection is going away", async () => {
    const pubsub = new PubSub<Topics>();
    const sent: number[] = [];
    const results: PushedResults = { resultFor: (n) => result(n as number), maxWaiting: 3, behind: () => new Error("x") };
    const pushed = pushedSubscription(pubsub.subscribe("said"), results, {
      next: (r) => {
        const n = (r.data as { said: number }).said;
        if (n === 1) return ENDED;
        sent.push(n);
        return null;
      },
    }) as PushedSubscription;
    const ended = pushed.stream.next();
    for (const n of [0, 1, 2]) pubsub.publish("said", n);
    assert.deepEqual(await ended, { value: undefined, done: true });
    assert.deepEqual(sent, [0]);
    assert.equal(pubsub.count("said"), 0);
  });

  const endings: Array<{
    name: string;
    act: (w: ReturnType<typeof world>) => void | Promise<void>;
    options?: Parameters<typeof world>[0];
    error: RegExp;
    sent: number[];
  }> = [
    {
      name: "the sink refuses an event (the lag rule)",
      options: { refuseAt: 2 },
      act: ({ pubsub }) => [0, 1, 2, 3].forEach((i) => pubsub.publish("said", i)),
      error: /^Error: refused 2$/,
      sent: [0, 1],
    },
    {
      name: "more results wait than maxWaiting",
      options: { results: { resultFor: (n) => (n === 0 ? new Promise<ExecutionResult>(() => undefined) : result(n as number)) } },
      act: ({ pubsub }) => [0, 1, 2, 3, 4].forEach((i) => pubsub.publish("said", i)),
      error: /fell behind/,
      sent: [],
    },
    {
      name: "a waiting result rejects",
      options: { results: { resultFor: (n) => (n === 1 ? Promise.reject(new Error("join failed")) : result(n as number)) } },
      act: async ({ pubsub }) => {
        [0, 1, 2].forEach((i) => pubsub.publish("said", i));
        await flush();
        pubsub.publish("said", 3);
      },
      error: /join failed/,
      sent: [0],
    },
    {
      name: "the topic's filter throws",
      options: {
        keep: (n) => {
          if (n === 1) throw new Error("bad filter");
          return true;
        },
      },
      act: ({ pubsub }) => [0, 1, 2].forEach((i) => pubsub.publish("said", i)),
      error: /bad filter/,
      sent: [0],
    },
    {
      name: "it is failed from outside (failSubscription)",
      act: ({ pubsub, pushed }) => {
        pubsub.publish("said", 0);
        pushed.fail(new Error("closed from outside"));
        pubsub.publish("said", 1);
      },
      error: /closed from outside/,
      sent: [0],
    },
  ];
  for (const ending of endings) {
    it(`ends with an error when ${ending.name}: its stream rejects, the source is let go, nothing more is sent`, async () => {
      const w = world(ending.options);
      await ending.act(w);
      await assert.rejects(w.ended, (err: Error) => ending.error.test(String(err)));
      assert.equal(w.pubsub.count("said"), 0);
      w.pubsub.publish("said", 7);
      await flush();
      assert.deepEqual(w.sent, ending.sent);
      await assert.rejects(w.pushed.stream.next(), ending.error, "a later next() says the same");
    });
  }

  it("an error before graphql-ws asks for the stream's next() is no unhandled rejection: next() rejects with it", async () => {
    const pubsub = new PubSub<Topics>();
    const results: PushedResults = { resultFor: (n) => result(n as number), maxWaiting: 3, behind: () => new Error("x") };
    const pushed = pushedSubscription(pubsub.subscribe("said"), results, { next: () => new Error("at once") }) as PushedSubscription;
    pubsub.publish("said", 0);
    await flush();
    await assert.rejects(pushed.stream.next(), /at once/);
  });

  it("is null for a stream that is not our pubsub's (iterated as before)", () => {
    async function* other() {
      yield 1;
    }
    const results: PushedResults = { resultFor: (n) => result(n as number), maxWaiting: 3, behind: () => new Error("x") };
    assert.equal(pushedSubscription(other(), results, { next: () => null }), null);
  });
});
