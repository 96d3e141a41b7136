import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { buildSchema } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import { connectSubscribers } from "../../bench/subscriber-clients.js";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";

const noWait = async () => {};

// bench:memory's subscribers: many from one process must pass the server's per-address bound as real clients do.
describe("connectSubscribers: bench subscribers spread over loopback addresses", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi({ limits: { ...DEFAULT_LIMITS, maxConnections: 20, maxConnectionsPerAddress: 3 } });
  });
  after(async () => {
    await k.dispose();
  });

  it("connects 9 subscribers to a kintsugi that takes 3 an address, none refused, each hearing the queue's events", async () => {
    let events = 0;
    const connections = await connectSubscribers({
      url: `${k.url.replace("http", "ws")}/graphql`,
      count: 9,
      query: "subscription { repairEntryEvents { kind } }",
      onEvent: () => void events++,
      perAddress: 3,
      inFlight: 4,
      retryWait: noWait,
      withinMs: 30_000,
    });
    try {
      assert.deepEqual(
        { addresses: connections.addresses, retries: connections.retries, closes: [...connections.closes] },
        { addresses: 3, retries: 0, closes: [] },
      );
      const added = await k.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.0.0.9") { index } }`);
      assert.equal(added.errors, undefined);
      const deadline = Date.now() + 20_000;
      while (events < 9 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
      assert.ok(events >= 9, `every subscriber heard the new entry (${events} events)`);
    } finally {
      await connections.dispose();
    }
  });
});

describe("connectSubscribers: a client the server closes before it is acknowledged tries again", () => {
  const schema = buildSchema("type Query { ok: Boolean } type Subscription { ticks: Int }");
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  let url = "";
  let refuse = 2;
  before(async () => {
    // Attached before graphql-ws: the first two sockets are closed as graphql-ws closes a late connection_init.
    wss.on("connection", (socket) => {
      if (refuse-- > 0) socket.close(4408, "Connection initialisation timeout");
    });
    // A subscription that stays open without events (and ends when its client goes).
    const quiet = (): AsyncIterableIterator<never> => {
      const iterator: AsyncIterableIterator<never> = {
        next: () => new Promise(() => {}),
        return: async () => ({ value: undefined, done: true }),
        [Symbol.asyncIterator]: () => iterator,
      };
      return iterator;
    };
    useServer({ schema, roots: { subscription: { ticks: quiet } } }, wss);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => http.close(resolve));
  });

  it("connects all 5, counting the 2 retries and their close code", async () => {
    const connections = await connectSubscribers({
      url,
      count: 5,
      query: "subscription { ticks }",
      onEvent: () => {},
      inFlight: 2,
      retryWait: noWait,
      withinMs: 30_000,
    });
    try {
      assert.deepEqual({ retries: connections.retries, closes: [...connections.closes] }, { retries: 2, closes: [[4408, 2]] });
      assert.equal(wss.clients.size, 5);
    } finally {
      await connections.dispose();
    }
  });
});
