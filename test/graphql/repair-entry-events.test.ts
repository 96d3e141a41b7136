import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import WebSocket from "ws";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { SQLITE_KEYS, withRawDatabase } from "../support/side-store.js";
import { until } from "../support/until.js";
import { subscribe, subscriptionCount } from "../support/ws-subscriber.js";

type Event = {
  repairEntryEvents: {
    kind: string;
    entry: { index: string; status: string; deleted: boolean };
    previous: { index: string; deleted: boolean } | null;
    record: { reason: string };
  };
};
const EVENT_FIELDS = `{ kind entry { index address status deleted } previous { index deleted } record { reason } }`;

describe("repairEntryEvents over a real WebSocket", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi({}, { subscriptionBufferSize: 20 });
  });
  after(() => k.dispose());

  const add = (address: string, type = "qemu") =>
    k.gql(`mutation($a: IPAddress!, $t: String!) { addRepairEntry(operation: "unreachable", machineType: $t, address: $a) { index } }`, {
      a: address,
      t: type,
    });

  it("filters by having and notHaving, and delivers one entry's events in commit order", async () => {
    const all = subscribe<Event>(k.url, `subscription { repairEntryEvents ${EVENT_FIELDS} }`);
    const onlyOne = subscribe<Event>(k.url, `subscription { repairEntryEvents(having: { addresses: ["10.7.0.1"] }) ${EVENT_FIELDS} }`);
    const notIpmi = subscribe<Event>(k.url, `subscription { repairEntryEvents(notHaving: { machineTypes: ["ipmi-2.0"] }) ${EVENT_FIELDS} }`);
    try {
      await Promise.all([all.ready, onlyOne.ready, notIpmi.ready]);
      const first = (await add("10.7.0.1")).data?.["addRepairEntry"].index;
      await add("10.7.0.2", "ipmi-2.0");
      await k.gql(`mutation($i: ID!) { deleteRepairEntry(index: $i) { index } }`, { i: first });
      await k.gql(`mutation { deleteUnfinishedRepairEntries { index } }`);
      const events = await all.waitFor(4);
      assert.deepEqual(
        events.map((e) => [e.repairEntryEvents.kind, e.repairEntryEvents.entry.index, e.repairEntryEvents.entry.deleted]),
        [
          ["CREATED", first, false],
          ["CREATED", String(Number(first) + 1), false],
          ["DELETE_REQUESTED", first, true],
          ["DELETE_REQUESTED", String(Number(first) + 1), true],
        ],
      );
      // The entry before each change: none for a creation, not yet marked for a deletion request.
      assert.deepEqual(
        events.map((e) => e.repairEntryEvents.previous),
        [null, null, { index: first, deleted: false }, { index: String(Number(first) + 1), deleted: false }],
      );
      assert.deepEqual(
        (await onlyOne.waitFor(2)).map((e) => e.repairEntryEvents.kind),
        ["CREATED", "DELETE_REQUESTED"],
      );
      assert.deepEqual(
        (await notIpmi.waitFor(2)).map((e) => e.repairEntryEvents.entry.index),
        [first, first],
      );
      // Each subscriber gets events in commit order: once a later event for 10.7.0.1 arrived, nothing else is coming.
      const marker = (await add("10.7.0.1")).data?.["addRepairEntry"].index;
      assert.deepEqual(
        (await onlyOne.waitFor(3)).map((e) => e.repairEntryEvents.entry.index),
        [first, first, marker],
        "nothing of the other entry",
      );
      assert.deepEqual(
        (await notIpmi.waitFor(3)).map((e) => e.repairEntryEvents.entry.index),
        [first, first, marker],
      );
    } finally {
      await Promise.all([all.close(), onlyOne.close(), notIpmi.close()]);
    }
  });

  it("answers an invalid subscription with its validation error, while identical valid ones share a document and still flow", async () => {
    const bad = subscribe<Event>(k.url, "subscription { repairEntryEvents { bogus } }");
    const twins = [0, 1].map(() => subscribe<Event>(k.url, `subscription { repairEntryEvents ${EVENT_FIELDS} }`));
    try {
      await until("the invalid subscription is answered with an error", () => bad.errors.length > 0, Boolean, 10_000);
      assert.match(JSON.stringify(bad.errors), /Cannot query field \\"bogus\\" on type \\"RepairEntryEvent\\"/);
      await Promise.all(twins.map((t) => t.ready));
      const index = (await add("10.7.2.1")).data?.["addRepairEntry"].index;
      for (const twin of twins) assert.equal((await twin.waitFor(1))[0]?.repairEntryEvents.entry.index, index);
    } finally {
      await Promise.all([bad.close(), ...twins.map((t) => t.close())]);
    }
  });

  it("publishes nothing for a transaction that rolled back", async () => {
    const index = (await add("10.7.1.1")).data?.["addRepairEntry"].index as string;
    const events = subscribe<Event>(k.url, `subscription { repairEntryEvents ${EVENT_FIELDS} }`);
    try {
      await events.ready;
      // Make the next write of this entry fail inside its transaction.
      withRawDatabase(k.databasePath, (db) =>
        db.exec(
          `CREATE TRIGGER fail_once BEFORE UPDATE ON kv WHEN NEW.key = '${SQLITE_KEYS.entry(Number(index))}' BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`,
        ),
      );
      const res = await k.gql(`mutation($i: ID!) { deleteRepairEntry(index: $i) { index } }`, { i: index });
      // The driver reports a write SQLite refused as the store being unavailable, as for any failing disk.
      assert.equal(res.errors?.[0]?.extensions?.type, "STORE_UNAVAILABLE");
      withRawDatabase(k.databasePath, (db) => db.exec("DROP TRIGGER fail_once"));
      await add("10.7.1.2");
      const [event] = await events.waitFor(1);
      assert.equal(event?.repairEntryEvents.kind, "CREATED", "the first event is the next committed change, not the rolled-back one");
      assert.equal(events.received.length, 1);
      const stored = (await k.gql(`query($i: ID!) { repairEntry(index: $i) { deleted history { kind } } }`, { i: index })).data?.["repairEntry"];
      assert.deepEqual(stored, { deleted: false, history: [{ kind: "CREATED" }] });
    } finally {
      await events.close();
    }
  });

  it("closes a subscriber that stops reading, while the others get every event and mutations keep going", async () => {
    const healthy = subscribe<Event>(k.url, `subscription { repairEntryEvents { kind entry { index } } }`);
    // A raw graphql-ws client that subscribes and then stops reading its socket.
    // Each of its events is large (the 8,000-character serial 16 times over), so that the socket's buffers fill in a
    // few dozen mutations, however loaded the machine.
    const serials = Array.from({ length: 16 }, (_, i) => `s${i}: entry { serial }`).join(" ");
    const stuck = new WebSocket(`${k.url.replace("http", "ws")}/graphql`, "graphql-transport-ws");
    await new Promise<void>((resolve) => stuck.on("open", () => resolve()));
    stuck.send(JSON.stringify({ type: "connection_init" }));
    await new Promise<void>((resolve) => stuck.once("message", () => resolve()));
    stuck.send(
      JSON.stringify({
        id: "1",
        type: "subscribe",
        payload: { query: `subscription { repairEntryEvents { entry { index serial history { reason } } ${serials} record { reason detail } } }` },
      }),
    );
    await healthy.ready;
    await until("the stuck client's subscription is registered too", async () => (await subscriptionCount(k.url, "repairEntryEvents")) === 2);
    // The stuck client stops reading only until the server drops its subscription, and then reads again: a client
    // that read nothing for longer would miss graphql-ws's keep-alive pings (every 12 s, 12 s to answer) and be cut
    // off without a word, which is right for a dead client but not what this test is about.
    (stuck as unknown as { _socket: { pause(): void } })._socket.pause();
    const told = new Promise<string[]>((resolve) => {
      const errors: string[] = [];
      stuck.on("message", (data) => {
        const message = JSON.parse(String(data)) as { type: string; payload?: Array<{ message: string }> };
        if (message.type === "error") errors.push(message.payload?.[0]?.message ?? "");
        if (message.type === "error" || message.type === "complete") resolve(errors);
      });
      stuck.on("close", () => resolve(errors));
    });
    const big = "x".repeat(8000);
    const addLarge = (i: number) =>
      k.gql(`mutation($a: IPAddress!, $s: String) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a, serial: $s) { index } }`, {
        a: `10.8.${i >> 8}.${i & 255}`,
        s: big,
      });
    const most = 600;
    let sent = 0;
    while ((await subscriptionCount(k.url, "repairEntryEvents")) === 2) {
      assert.ok(sent < most, `the server still serves the stuck subscriber after ${most} events`);
      assert.equal((await addLarge(sent++)).errors, undefined);
    }
    (stuck as unknown as { _socket: { resume(): void } })._socket.resume();
    // Mutations keep going after the drop, and the healthy subscriber gets every event, before and after it.
    const count = sent + 20;
    while (sent < count) assert.equal((await addLarge(sent++)).errors, undefined);
    const got = await healthy.waitFor(count, 60_000);
    assert.equal(got.length, count, "the healthy subscriber received every event");
    assert.deepEqual(
      await told,
      ["subscriber fell 20 events behind on repairEntryEvents and was closed"],
      "the stuck subscriber is told why its subscription ended",
    );
    stuck.terminate();
    await healthy.close();
  });
});
