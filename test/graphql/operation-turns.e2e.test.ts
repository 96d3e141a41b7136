import assert from "node:assert/strict";
import { Agent, request } from "node:http";
import { after, before, describe, it } from "node:test";
import { OPERATIONS_PER_TURN } from "../../src/graphql/http-server.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { countTurns, type TurnCount } from "../support/loop-turns.js";
import { wsConnection } from "../support/ws-operations.js";

// An operator's add storm over HTTP against the real server: requests read in one poll of the sockets start their
// operations a few a turn of the event loop, so /health (and every other client) waits for a few, not for the burst.
const BURST = 5 * OPERATIONS_PER_TURN;
const ADD = `mutation ($a: IPAddress!) { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: $a) { index } }`;

/** One request on `agent`'s sockets; resolves with the status and body. */
function send(url: URL, agent: Agent, method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, agent, headers: body ? { "content-type": "application/json" } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("a burst of operations starts a few a turn (kintsugi serve over HTTP and WebSocket)", () => {
  let k: TestKintsugi;
  let counter: TurnCount | null = null;
  const commitTurns: number[] = [];
  before(async () => {
    k = await startTestKintsugi({}, { onCommitted: () => commitTurns.push(counter?.turns ?? -1) });
  });
  after(async () => {
    await k.dispose();
  });

  it(`commits at most ${OPERATIONS_PER_TURN} of ${BURST} adds sent at once in one turn, and answers every one`, async () => {
    const url = new URL(k.url);
    const agent = new Agent({ keepAlive: true, maxSockets: BURST });
    try {
      // Every connection open and read by the server first, so that the adds all wait in its sockets for one poll; and
      // one add before them, so that none waits for what the first request of a document does once.
      const warm = await Promise.all(Array.from({ length: BURST }, () => send(url, agent, "GET", "/version")));
      assert.ok(warm.every((r) => r.status === 200));
      const first = await send(url, agent, "POST", "/graphql", JSON.stringify({ query: ADD, variables: { a: "10.7.1.1" } }));
      assert.equal(first.status, 200, first.body);
      commitTurns.length = 0;
      counter = countTurns();
      // All written in this turn: the server reads them in its next poll of the sockets.
      const answers = await Promise.all(
        Array.from({ length: BURST }, (_, i) => send(url, agent, "POST", "/graphql", JSON.stringify({ query: ADD, variables: { a: `10.7.0.${i + 1}` } }))),
      );
      counter.stop();
      assert.deepEqual(
        answers.filter((a) => a.status !== 200 || !a.body.includes('"index"')),
        [],
      );
      const indexes = answers.map((a) => Number((JSON.parse(a.body) as { data: { addRepairEntry: { index: string } } }).data.addRepairEntry.index));
      assert.equal(new Set(indexes).size, BURST, "each add its own entry");
      const perTurn = new Map<number, number>();
      for (const t of commitTurns) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
      assert.equal(commitTurns.length, BURST);
      const most = Math.max(...perTurn.values());
      assert.ok(most <= OPERATIONS_PER_TURN, `${most} adds were committed in one turn of the event loop (commits a turn: ${[...perTurn.values()].join(", ")})`);
    } finally {
      agent.destroy();
    }
  });

  it(`commits at most ${OPERATIONS_PER_TURN} of ${BURST} adds sent at once over one WebSocket in one turn, and answers every one`, async () => {
    const ws = wsConnection(k.url);
    try {
      // The runner's query helper sends no variables: each add names its address in its text.
      const add = (address: string) => `mutation { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: "${address}") { index } }`;
      // One add first, so that the connection is acknowledged and none of the burst waits for what a first one does.
      const first = await ws.run(add("10.8.1.1"));
      assert.equal(first.error, null, String(first.error));
      commitTurns.length = 0;
      counter = countTurns();
      // Sent in this turn: the server reads them from its socket in one poll.
      const outcomes = await Promise.all(Array.from({ length: BURST }, (_, i) => ws.run(add(`10.8.0.${i + 1}`))));
      counter.stop();
      assert.deepEqual(
        outcomes.filter((o) => o.error !== null || !JSON.stringify(o.results).includes('"index"')),
        [],
      );
      assert.equal(commitTurns.length, BURST);
      const perTurn = new Map<number, number>();
      for (const t of commitTurns) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
      const most = Math.max(...perTurn.values());
      assert.ok(most <= OPERATIONS_PER_TURN, `${most} adds were committed in one turn of the event loop (commits a turn: ${[...perTurn.values()].join(", ")})`);
    } finally {
      await ws.dispose();
    }
  });
});
