import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import WebSocket from "ws";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { acknowledged, closed, openSocket } from "../support/raw-websocket.js";

// Sockets count before they authenticate (graphql-ws gives them a few seconds): one client must not take every slot.
describe("WebSocket connections from one address are capped (limits.max_connections_per_address)", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi({ limits: { ...DEFAULT_LIMITS, maxConnections: 10, maxConnectionsPerAddress: 2 } });
  });
  after(async () => {
    await k.dispose();
  });

  it("closes the connection past the cap with 1013 and a reason naming the key; a closed one frees its slot", async () => {
    const open = await Promise.all([openSocket(k.url), openSocket(k.url)]);
    try {
      const extra = await openSocket(k.url);
      assert.deepEqual(await closed(extra), [1013, "too many WebSocket connections from this address: the limit is 2 (limits.max_connections_per_address)"]);
      assert.equal((await fetch(`${k.url}/health`)).status, 200);
      // The refused one took no slot: closing one of the two lets exactly one more in.
      open[0]?.close();
      await closed(open[0] as WebSocket);
      const next = await openSocket(k.url);
      open[0] = next;
      assert.equal(await acknowledged(next), true, "a slot freed is a slot to use");
      const past = await openSocket(k.url);
      assert.equal((await closed(past))[0], 1013);
    } finally {
      for (const socket of open) socket.close();
      await Promise.all(open.map((s) => closed(s)));
    }
  });
});
