import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { assertQuickHealth } from "../support/quick-health.js";
import { acknowledged, closed, openSocket } from "../support/raw-websocket.js";
import { until } from "../support/until.js";
import { subscriptionCount } from "../support/ws-subscriber.js";
import { keptLogger } from "../support/kept-log.js";

// A subscriber whose client stops reading, against the real serve wiring: on loopback the kernel takes in hundreds of
// kilobytes unread, so what is left in userland never passes the bound; what the client has not acknowledged does.
const MAX_BUFFERED = 16 * 1024;

describe("a slow subscriber is closed by limits.max_buffered_bytes, counted by what its client has not read", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi({ limits: { ...DEFAULT_LIMITS, maxBufferedBytes: MAX_BUFFERED } });
  });
  after(() => k.dispose());

  it("closes the connection (1008, naming the limit) once it holds more unread than the bound, and goes on serving", async () => {
    const socket = await openSocket(k.url);
    assert.equal(await acknowledged(socket), true);
    const query =
      "subscription { repairEntryEvents { kind entry { index address nodename machineType operation status step stepStatus lastTransitionTime } } }";
    socket.send(JSON.stringify({ type: "subscribe", id: "1", payload: { query } }));
    await until(
      "the server holds the subscription",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === 1,
    );
    const gone = closed(socket);
    socket.pause();
    // About 300 bytes an event: 120 events are twice the bound, and far less than the kernel takes in.
    const added = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        k.gql(`mutation ($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, { a: `10.7.0.${i + 1}` }),
      ),
    );
    assert.deepEqual(
      added.flatMap((a) => a.errors ?? []),
      [],
    );
    await until(
      "the server let the subscription go",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === 0,
    );
    await assertQuickHealth(k.url);
    socket.resume();
    const [code, reason] = await gone;
    assert.deepEqual([code, reason], [1008, `stopped reading: more than ${MAX_BUFFERED} bytes sent and not read (limits.max_buffered_bytes)`]);
  });
});

// A bound above what the kernel takes in on loopback (about 4 MB a connection here): the connection's subscriptions
// must keep reaching the check after the socket's buffers are full, not wait for the kernel to take each message. The
// close frame is then queued behind megabytes the client never reads, and the socket destroyed after the grace: the
// server's log says why it closed the connection.
const ABOVE_KERNEL = 8 * 1024 * 1024;
const SUBSCRIPTIONS = 1000;

describe("a slow subscriber is closed by limits.max_buffered_bytes when the bound is more than the kernel takes in", () => {
  let k: TestKintsugi;
  const { logger, logged } = keptLogger("warn");
  before(async () => {
    k = await startTestKintsugi({ limits: { ...DEFAULT_LIMITS, maxBufferedBytes: ABOVE_KERNEL, maxSubscriptionsPerConnection: SUBSCRIPTIONS } }, { logger });
  });
  after(() => k.dispose());

  it("closes the connection once more than the bound is unread, the bound exceeded by less than one event", async () => {
    const socket = await openSocket(k.url);
    assert.equal(await acknowledged(socket), true);
    const query =
      "subscription { repairEntryEvents { kind entry { index address nodename machineType operation status step stepStatus lastTransitionTime } } }";
    for (let id = 0; id < SUBSCRIPTIONS; id++) socket.send(JSON.stringify({ type: "subscribe", id: String(id), payload: { query } }));
    await until(
      "the server holds the subscriptions",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === SUBSCRIPTIONS,
    );
    socket.pause();
    // About 300 KB an event for the connection: the kernel is full after about 15 events, the bound passed after 30.
    let events = 0;
    const slowReaders = () => logged.filter((r) => r.msg === "closed a WebSocket connection whose client stopped reading");
    await until(
      "the server closed the connection as a slow reader",
      async () => {
        await k.gql(`mutation ($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, {
          a: `10.8.${events >> 8}.${events++ & 255}`,
        });
        return slowReaders().length;
      },
      (n) => n > 0,
      60_000,
    );
    const [record] = slowReaders();
    const unread = Number(record?.["unreadBytes"]);
    const oneEvent = Math.ceil(unread / events) + 1;
    assert.equal(record?.["limit"], "max_buffered_bytes");
    assert.ok(unread > ABOVE_KERNEL && unread <= ABOVE_KERNEL + oneEvent, `${unread} unread after ${events} events`);
    await until(
      "the server let the subscriptions go",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === 0,
    );
    await assertQuickHealth(k.url);
    socket.terminate();
  });
});
