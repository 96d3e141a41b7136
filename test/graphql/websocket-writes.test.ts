import assert from "node:assert/strict";
import { once } from "node:events";
import { after, before, describe, it } from "node:test";
import WebSocket, { WebSocketServer } from "ws";
import { queuedBytes, queuedSendWebSocket, sendSplitMessage } from "../../src/graphql/limits/websocket-writes.js";
import { until } from "../support/until.js";

// A real ws server whose connections are of queuedSendWebSocket, and a client of it that records what it reads, in
// order: its messages' text and the pings it is sent.
describe("queuedSendWebSocket (a connection's messages of one turn written as one buffer)", () => {
  let wss: WebSocketServer;
  let turns = 0;
  before(async () => {
    wss = new WebSocketServer({ host: "127.0.0.1", port: 0, WebSocket: queuedSendWebSocket(WebSocket, () => turns++) });
    await once(wss, "listening");
  });
  const clients: WebSocket[] = [];
  after(async () => {
    for (const client of clients) client.terminate();
    for (const server of wss.clients) server.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });

  async function connect(): Promise<{ server: WebSocket; read: string[]; writes: () => number }> {
    const { port } = wss.address() as { port: number };
    const accepted = once(wss, "connection") as Promise<[WebSocket]>;
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    clients.push(client);
    const read: string[] = [];
    client.on("message", (data) => read.push(String(data)));
    client.on("ping", (data) => read.push(`ping ${String(data)}`));
    const [[server]] = await Promise.all([accepted, once(client, "open")]);
    let writes = 0;
    const socket = (server as unknown as { _socket: { write: (...a: unknown[]) => boolean } })._socket;
    const write = socket.write.bind(socket);
    socket.write = (...a: unknown[]) => (writes++, write(...a));
    return { server, read, writes: () => writes };
  }

  const tail = Buffer.from('{"data":{"said":"hi"}}}');
  const head = (id: string) => `{"id":${JSON.stringify(id)},"type":"next","payload":`;
  const text = (id: string) => `${head(id)}${tail.toString()}`;

  it("writes the next messages of a turn to the socket once, each exactly as its text, and counts their bytes", async () => {
    const { server, read, writes } = await connect();
    const ids = Array.from({ length: 100 }, (_, i) => (i % 2 ? `s${i}` : `ünï"${i}`));
    const turnsBefore = turns;
    for (const [i, id] of ids.entries()) sendSplitMessage(server, i % 3 ? head(id) : Buffer.from(head(id)), tail);
    assert.equal(writes(), 0, "nothing is written before the turn ends");
    await until(
      "the client read them all",
      () => read.length,
      (n) => n === ids.length,
    );
    assert.equal(writes(), 1);
    assert.equal(turns, turnsBefore + 1, "the turn's end is told once");
    assert.deepEqual(read, ids.map(text));
    assert.equal(
      queuedBytes(server),
      ids.reduce((sum, id) => sum + Buffer.byteLength(text(id)), 0),
    );
  });

  it("keeps the order of what else is written in the turn: graphql-ws's own messages, a ping, the close frame", async () => {
    const { server, read } = await connect();
    sendSplitMessage(server, head("1"), tail);
    server.send('{"id":"1","type":"complete"}');
    sendSplitMessage(server, head("2"), tail);
    server.ping("probe");
    sendSplitMessage(server, head("3"), tail);
    server.close(1008, "stopped reading");
    await until(
      "the client read everything before the close frame",
      () => read.length,
      (n) => n === 5,
    );
    assert.deepEqual(read, [text("1"), '{"id":"1","type":"complete"}', text("2"), "ping probe", text("3")]);
  });

  it("writes nothing of the turn to a connection terminated before it ended", async () => {
    const { server, read, writes } = await connect();
    sendSplitMessage(server, head("1"), tail);
    server.terminate();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(writes(), 0);
    assert.deepEqual(read, []);
  });
});
