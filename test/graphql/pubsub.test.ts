import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listenTo, PubSub, SubscriberTooSlowError } from "../../src/graphql/pubsub.js";
import { buildSchema } from "../../src/graphql/schema.js";
import { TOPIC_NAMES } from "../../src/graphql/topics.js";

describe("PubSub", () => {
  it("delivers in publish order to every subscriber of a topic, and nothing of other topics", async () => {
    const pubsub = new PubSub<{ a: number; b: string }>();
    const one = pubsub.subscribe("a");
    const two = pubsub.subscribe("a");
    const other = pubsub.subscribe("b");
    for (let i = 0; i < 5; i++) pubsub.publish("a", i);
    for (const it of [one, two]) {
      const got = [];
      for (let i = 0; i < 5; i++) got.push((await it.next()).value);
      assert.deepEqual(got, [0, 1, 2, 3, 4]);
    }
    pubsub.publish("b", "x");
    assert.deepEqual(await other.next(), { value: "x", done: false });
  });

  it("never waits for a stuck subscriber: it is ended with an error once its buffer is full", async () => {
    const pubsub = new PubSub<{ a: number }>(3);
    const stuck = pubsub.subscribe("a");
    const healthy = pubsub.subscribe("a");
    const received: number[] = [];
    const reading = (async () => {
      for await (const v of healthy) {
        received.push(v);
        if (v === 9) break;
      }
    })();
    for (let i = 0; i < 10; i++) {
      pubsub.publish("a", i);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await reading;
    assert.deepEqual(received, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await assert.rejects(stuck.next(), (err: Error) => err instanceof SubscriberTooSlowError && /fell 3 events behind/.test(err.message));
    assert.deepEqual(await stuck.next(), { value: undefined, done: true });
    assert.equal(pubsub.count("a"), 0, "both are gone: one ended by return, one by falling behind");
  });

  it("with a filter, queues only what it accepts, judged as published; a filter that throws ends that subscriber", async () => {
    const pubsub = new PubSub<{ a: number }>(3);
    const even = pubsub.subscribe("a", (v) => v % 2 === 0);
    const broken = pubsub.subscribe("a", (v) => {
      if (v === 3) throw new Error("bad filter");
      return true;
    });
    // Six events, three of them kept: with a buffer of 3 an unfiltered subscriber would have fallen behind.
    for (let i = 0; i < 6; i++) pubsub.publish("a", i);
    const got = [];
    for (let i = 0; i < 3; i++) got.push((await even.next()).value);
    assert.deepEqual(got, [0, 2, 4]);
    await assert.rejects(broken.next(), /bad filter/);
    assert.equal(pubsub.count("a"), 1);
  });

  it("forgets a subscriber that returns", async () => {
    const pubsub = new PubSub<{ a: number }>();
    const it = pubsub.subscribe("a");
    assert.equal(pubsub.count("a"), 1);
    await it.return?.();
    assert.equal(pubsub.count("a"), 0);
    pubsub.publish("a", 1);
    assert.deepEqual(await it.next(), { value: undefined, done: true });
  });
});

describe("listenTo (a stream's events handed on as published)", () => {
  it("hands the events held first, then each as it is published, past the buffer's size, until the stream returns", async () => {
    const pubsub = new PubSub<{ a: number }>(3);
    const stream = pubsub.subscribe("a");
    pubsub.publish("a", 0);
    const got: number[] = [];
    assert.equal(listenTo<number>(stream, { next: (v) => got.push(v), fail: (err) => assert.fail(err) }), true);
    for (let i = 1; i < 10; i++) pubsub.publish("a", i);
    assert.deepEqual(got, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], "synchronously, and a listener never falls behind the buffer");
    await stream.return?.();
    pubsub.publish("a", 10);
    assert.equal(got.length, 10);
    assert.equal(pubsub.count("a"), 0);
  });

  it("tells the listener of a listener's next that threw, once, and forgets the stream", () => {
    const pubsub = new PubSub<{ a: number }>();
    const failures: string[] = [];
    listenTo<number>(pubsub.subscribe("a"), {
      next: () => {
        throw new Error("sink broke");
      },
      fail: (err) => failures.push(err.message),
    });
    pubsub.publish("a", 1);
    pubsub.publish("a", 2);
    assert.deepEqual(failures, ["sink broke"]);
    assert.equal(pubsub.count("a"), 0);
  });

  it("is false for a value that is not one of its streams", () => {
    assert.equal(listenTo({}, { next: () => undefined, fail: () => undefined }), false);
  });
});

describe("TOPIC_NAMES", () => {
  it("names exactly the schema's subscription fields, so the subscriptions gauge reports every one", () => {
    const fields = Object.keys(buildSchema().getSubscriptionType()?.getFields() ?? {}).sort();
    assert.deepEqual([...TOPIC_NAMES].sort(), fields);
  });
});
