import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type WebSocket from "ws";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { assertQuickHealth } from "../support/quick-health.js";
import { acknowledged, openSocket } from "../support/raw-websocket.js";
import { until } from "../support/until.js";
import { subscriptionCount } from "../support/ws-subscriber.js";
import { keptLogger } from "../support/kept-log.js";

// Two connections whose clients stop reading, each under its own max_buffered_bytes, together over the server-wide
// bound once the kernel's buffers are full (about 4 MB a connection on loopback): the one holding the most is closed,
// and only it. About 300 bytes an event a subscription: 180 KB an event on one connection, 150 KB on the other, so
// both hold megabytes in the server's memory when the total passes the bound.
const TOTAL = 3 * 1024 * 1024;
const SUBSCRIPTIONS = [600, 500];
const QUERY = "subscription { repairEntryEvents { kind entry { index address nodename machineType operation status step stepStatus lastTransitionTime } } }";

describe("limits.max_total_buffered_bytes closes the connections holding the most queued bytes first", () => {
  let k: TestKintsugi;
  const { logger, logged } = keptLogger("warn");
  before(async () => {
    k = await startTestKintsugi(
      { limits: { ...DEFAULT_LIMITS, maxBufferedBytes: 64 * 1024 * 1024, maxTotalBufferedBytes: TOTAL, maxSubscriptionsPerConnection: 600 } },
      { logger },
    );
  });
  after(() => k.dispose());

  it("closes the connection holding the most once all hold more than the bound, and keeps serving the other", async () => {
    const sockets: WebSocket[] = [];
    for (const count of SUBSCRIPTIONS) {
      const socket = await openSocket(k.url);
      assert.equal(await acknowledged(socket), true);
      for (let id = 0; id < count; id++) socket.send(JSON.stringify({ type: "subscribe", id: String(id), payload: { query: QUERY } }));
      sockets.push(socket);
    }
    const all = SUBSCRIPTIONS[0]! + SUBSCRIPTIONS[1]!;
    await until(
      "the server holds the subscriptions",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === all,
    );
    for (const socket of sockets) socket.pause();
    const closes = () => logged.filter((r) => r["limit"] === "max_total_buffered_bytes");
    let events = 0;
    await until(
      "the server closed a connection for the total it held",
      async () => {
        await k.gql(`mutation ($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, {
          a: `10.9.${events >> 8}.${events++ & 255}`,
        });
        return closes().length;
      },
      (n) => n > 0,
      60_000,
    );
    const [record] = closes();
    const held = Number(record?.["queuedBytes"]);
    const total = Number(record?.["totalQueuedBytes"]);
    assert.ok(total > TOTAL && held >= total / 2, `closed one holding ${held} of ${total} queued bytes: the most of the two`);
    // The larger is sent the more of every event, so it is the one closed. The other keeps its subscriptions: closing
    // the larger brought the total under the bound. The closed one's subscriptions go one by one as the events still
    // on their way reach them (or all at once when its socket closes).
    await until(
      "the server let the closed connection's subscriptions go, and only them",
      () => subscriptionCount(k.url, "repairEntryEvents"),
      (n) => n === SUBSCRIPTIONS[1],
    );
    assert.equal(closes().length, 1, "one connection closed");
    await assertQuickHealth(k.url);
    for (const socket of sockets) socket.terminate();
  });
});
