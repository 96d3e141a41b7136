import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type WebSocket from "ws";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { assertQuickHealth } from "../support/quick-health.js";
import { acknowledged, openSocket } from "../support/raw-websocket.js";
import { until } from "../support/until.js";
import { subscriptionCount } from "../support/ws-subscriber.js";

// Subscriptions whose events the server writes to their connection as they are published (not through graphql-ws's
// loop), against the real serve wiring: what a client sees is graphql-ws's protocol, message for message.
const QUERY = "subscription { repairEntryEvents { kind entry { index address } } }";

/** A connection that keeps every message it is sent, as text, in order. */
async function recordingSocket(url: string): Promise<{ socket: WebSocket; messages: string[] }> {
  const socket = await openSocket(url);
  assert.equal(await acknowledged(socket), true);
  const messages: string[] = [];
  socket.on("message", (data) => messages.push(String(data)));
  return { socket, messages };
}

const subscribeMessage = (id: string, query = QUERY) => JSON.stringify({ type: "subscribe", id, payload: { query } });
const parsed = (messages: string[]) => messages.map((m) => JSON.parse(m) as { id?: string; type: string; payload?: unknown });

describe("subscriptions pushed to their connection, over a real WebSocket", () => {
  let k: TestKintsugi;
  let added = 0;
  const add = async () => {
    const i = ++added;
    const answer = await k.gql(`mutation ($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, {
      a: `10.9.${i >> 8}.${i & 255}`,
    });
    assert.deepEqual(answer.errors, undefined);
    return `10.9.${i >> 8}.${i & 255}`;
  };
  before(async () => {
    k = await startTestKintsugi({ limits: { ...DEFAULT_LIMITS, maxConnectionsPerAddress: 100 } });
  });
  after(() => k.dispose());

  it("writes each event as graphql-ws's next message, byte for byte, to every subscription of the connection in order", async () => {
    const { socket, messages } = await recordingSocket(k.url);
    socket.send(subscribeMessage("a"));
    socket.send(subscribeMessage('b "quoted"'));
    await until(
      "both are held",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === 2,
    );
    const address = await add();
    await until(
      "both got the event",
      () => messages.length,
      (n) => n === 2,
    );
    const created = (id: string) => ({ id, type: "next", payload: { data: { repairEntryEvents: { kind: "CREATED", entry: { index: "1", address } } } } });
    // The text itself: the id first, then the type, then the payload, as graphql-ws's stringifyMessage writes it.
    assert.deepEqual(messages, [JSON.stringify(created("a")), JSON.stringify(created('b "quoted"'))]);
    socket.terminate();
  });

  it("stops a subscription its client completes, and keeps the others of its connection going", async () => {
    const { socket, messages } = await recordingSocket(k.url);
    const held = (await subscriptionCount(k.url, "repairEntryEvents")) ?? 0;
    socket.send(subscribeMessage("1"));
    socket.send(subscribeMessage("2"));
    await until(
      "both are held",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === held + 2,
    );
    await add();
    await until(
      "both got the first event",
      () => messages.length,
      (n) => n === 2,
    );
    socket.send(JSON.stringify({ type: "complete", id: "1" }));
    await until(
      "the server let 1 go",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === held + 1,
    );
    await add();
    await add();
    await until(
      "2 got both later events",
      () => parsed(messages).filter((m) => m.id === "2").length,
      (n) => n === 3,
    );
    assert.deepEqual(
      parsed(messages).map((m) => `${m.id} ${m.type}`),
      ["1 next", "2 next", "2 next", "2 next"],
      "nothing more for 1 (not even a complete: its client asked for it), and 2's events in order",
    );
    socket.terminate();
  });

  it("gives a reading subscriber every event in order next to 30 connections of 50 subscriptions that stopped reading", async () => {
    const stalled: WebSocket[] = [];
    await until(
      "the earlier tests' subscriptions are gone",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === 0,
    );
    for (let c = 0; c < 30; c++) {
      const { socket } = await recordingSocket(k.url);
      for (let i = 0; i < 50; i++) socket.send(subscribeMessage(String(i)));
      stalled.push(socket);
    }
    const reader = await recordingSocket(k.url);
    reader.socket.send(subscribeMessage("r"));
    await until(
      "every subscription is held",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === 1501,
    );
    for (const socket of stalled) socket.pause();
    const addresses: string[] = [];
    for (let i = 0; i < 40; i++) addresses.push(await add());
    await assertQuickHealth(k.url);
    await until(
      "the reader got every event",
      () => reader.messages.length,
      (n) => n >= 40,
    );
    const got = parsed(reader.messages).map(
      (m) => (m.payload as { data: { repairEntryEvents: { entry: { address: string } } } }).data.repairEntryEvents.entry.address,
    );
    assert.deepEqual(got, addresses);
    for (const socket of [...stalled, reader.socket]) socket.terminate();
  });
});

describe("a pushed subscription that falls behind, over a real WebSocket", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi({}, { subscriptionBufferSize: 5 });
  });
  after(() => k.dispose());

  it("is sent exactly the events the lag allows unread, then graphql-ws's error message naming the lag, and no more", async () => {
    const { socket, messages } = await recordingSocket(k.url);
    socket.send(subscribeMessage("slow"));
    await until(
      "the subscription is held",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === 1,
    );
    socket.pause();
    for (let i = 1; i <= 8; i++) {
      const answer = await k.gql(`mutation ($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, {
        a: `10.10.0.${i}`,
      });
      assert.deepEqual(answer.errors, undefined);
    }
    await until(
      "the server ended the subscription",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === 0,
    );
    socket.resume();
    await until("the client read the error", () => parsed(messages).some((m) => m.type === "error"));
    assert.deepEqual(
      parsed(messages).map((m) => (m.type === "error" ? `error ${(m.payload as Array<{ message: string }>)[0]?.message}` : `${m.id} ${m.type}`)),
      [...Array.from({ length: 5 }, () => "slow next"), "error subscriber fell 5 events behind on repairEntryEvents and was closed"],
    );
    socket.terminate();
  });
});
