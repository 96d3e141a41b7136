import assert from "node:assert/strict";
import { createServer as createHttpServer } from "node:http";
import { connect, createServer, type Server } from "node:net";
import { describe, it } from "node:test";
import { ListenError, reserveListenAddress } from "../../src/wiring/listen-address.js";

async function listening(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/** Sends a bare HTTP request on a connection opened now and resolves with the whole answer once the server ends it. */
function rawGet(port: number): { connected: Promise<void>; answer: Promise<string> } {
  const socket = connect(port, "127.0.0.1");
  // A connection nobody answers fails the test instead of holding it open.
  socket.setTimeout(20_000, () => socket.destroy(new Error("no answer within 20 s")));
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write("GET /early HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n");
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
  return { connected, answer: new Promise((resolve, reject) => socket.on("end", () => resolve(answer)).on("error", reject)) };
}

describe("the listen address, bound before kintsugi starts", () => {
  const refusals: Array<[string, () => Promise<{ host: string; port: number; cleanup: () => void }>, RegExp]> = [
    [
      "a port in use",
      async () => {
        const other = createServer();
        const port = await listening(other);
        return { host: "127.0.0.1", port, cleanup: () => other.close() };
      },
      /^cannot listen on 127\.0\.0\.1:\d+: the address is already in use \(by another kintsugi or another program\); stop it or change listen in the config$/,
    ],
    [
      "an address that is not this machine's",
      async () => ({ host: "192.0.2.1", port: 0, cleanup: () => undefined }),
      /^cannot listen on 192\.0\.2\.1:0: the address is not one of this machine's$/,
    ],
  ];
  for (const [name, given, message] of refusals) {
    it(`refuses ${name} with one line naming the address`, async () => {
      const { host, port, cleanup } = await given();
      try {
        await assert.rejects(reserveListenAddress({ host, port }), (err: unknown) => err instanceof ListenError && message.test(err.message));
      } finally {
        cleanup();
      }
    });
  }

  it("serves a connection made before the hand-over once the server takes the address over", async () => {
    const address = await reserveListenAddress({ host: "127.0.0.1", port: 0 });
    const server = createHttpServer((req, res) => res.end(`served ${req.url}`));
    try {
      const early = rawGet(address.port);
      await early.connected;
      await address.handOver(server);
      assert.match(await early.answer, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nserved \/early$/);
      assert.equal(await (await fetch(`http://127.0.0.1:${address.port}/later`)).text(), "served /later");
      await address.release();
      assert.equal(
        await (await fetch(`http://127.0.0.1:${address.port}/after-release`)).text(),
        "served /after-release",
        "a release after the hand-over leaves the server alone",
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const again = createServer();
    assert.equal(await listening(again, address.port), address.port, "closing the server freed the port");
    again.close();
  });

  it("holds at most so many connections while kintsugi starts: one more is closed at once, those held are served", async () => {
    const address = await reserveListenAddress({ host: "127.0.0.1", port: 0 }, 2);
    const server = createHttpServer((req, res) => res.end(`served ${req.url}`));
    try {
      // One after the other, so the kernel queues them in this order and the third finds two held.
      const held = [rawGet(address.port)];
      await held[0]?.connected;
      held.push(rawGet(address.port));
      await held[1]?.connected;
      const third = rawGet(address.port);
      const outcome = await third.answer.then(
        (text) => text,
        (err: NodeJS.ErrnoException) => err.code,
      );
      assert.ok(outcome === "" || outcome === "ECONNRESET", `the third connection got ${JSON.stringify(outcome)}`);
      await address.handOver(server);
      for (const early of held) assert.match(await early.answer, /\r\n\r\nserved \/early$/);
    } finally {
      await address.release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("frees the port and drops the connections held when released before any hand-over", async () => {
    const address = await reserveListenAddress({ host: "127.0.0.1", port: 0 });
    const early = rawGet(address.port);
    await early.connected;
    await address.release();
    // Closed with its request unread, so the kernel may reset it rather than end it: unanswered either way.
    const outcome = await early.answer.then(
      (text) => text,
      (err: NodeJS.ErrnoException) => err.code,
    );
    assert.ok(outcome === "" || outcome === "ECONNRESET", `the held connection got ${JSON.stringify(outcome)}`);
    const again = createServer();
    assert.equal(await listening(again, address.port), address.port);
    again.close();
  });
});
