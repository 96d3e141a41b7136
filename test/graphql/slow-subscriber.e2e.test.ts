import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { assertQuickHealth } from "../support/quick-health.js";
import { acknowledged, closed, openSocket } from "../support/raw-websocket.js";
import { until } from "../support/until.js";
import { subscriptionCount } from "../support/ws-subscriber.js";

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
