import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "graphql";
import { subscriptionTopic, UnreadEvents } from "../../src/graphql/limits/subscription-lag.js";

describe("UnreadEvents (a subscription's events its client has not shown it read)", () => {
  // Each step: the subscription, where its event starts, what the client acknowledged; whether the event is admitted.
  const cases: Array<{ name: string; steps: Array<[string, number, number, boolean]>; unread: Record<string, number> }> = [
    {
      name: "admits up to the bound of unread events, then refuses",
      steps: [
        ["1", 0, 0, true],
        ["1", 100, 0, true],
        ["1", 200, 0, true],
        ["1", 300, 0, false],
      ],
      unread: { "1": 3 },
    },
    {
      name: "an acknowledgement past an event's start counts it read",
      steps: [
        ["1", 0, 0, true],
        ["1", 100, 0, true],
        ["1", 200, 0, true],
        ["1", 300, 200, true],
      ],
      unread: { "1": 2 },
    },
    {
      name: "an event starting at the acknowledged byte is still unread",
      steps: [
        ["1", 0, 0, true],
        ["1", 100, 0, true],
        ["1", 200, 0, true],
        ["1", 300, 100, true],
        ["1", 400, 100, false],
      ],
      unread: { "1": 3 },
    },
    {
      name: "subscriptions of one connection are counted apart",
      steps: [
        ["1", 0, 0, true],
        ["2", 50, 0, true],
        ["1", 100, 0, true],
        ["2", 150, 0, true],
        ["1", 200, 0, true],
        ["2", 250, 0, true],
      ],
      unread: { "1": 3, "2": 3 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const lag = new UnreadEvents(3);
      assert.deepEqual(
        c.steps.map(([id, start, acknowledged]) => lag.admit(id, start, acknowledged)),
        c.steps.map((s) => s[3]),
      );
      for (const [id, n] of Object.entries(c.unread)) assert.equal(lag.unread(id), n, `unread of ${id}`);
    });
  }

  it("keeps what it records bounded while a client reads along", () => {
    const lag = new UnreadEvents(10);
    for (let i = 0; i < 100_000; i++) assert.equal(lag.admit("1", i * 10, Math.max(0, i - 5) * 10), true);
    assert.equal(lag.unread("1"), 6);
  });

  it("forgets a completed subscription", () => {
    const lag = new UnreadEvents(1);
    lag.admit("1", 0, 0);
    lag.forget("1");
    assert.equal(lag.admit("1", 10, 0), true);
  });
});

describe("subscriptionTopic", () => {
  it("names the root field the document subscribes to, for the operation asked", () => {
    const document = parse("subscription A { repairEntryEvents { kind } } subscription B { healthCheckEvents { address } }");
    assert.deepEqual([subscriptionTopic(document, "A"), subscriptionTopic(document, "B")], ["repairEntryEvents", "healthCheckEvents"]);
  });
});
