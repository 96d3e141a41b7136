import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";

/** Opens a raw connection, writes `text`, and resolves with everything the server sent once it closes the socket. */
function holdOpen(port: number, text: string): { closed: Promise<string>; socket: Socket } {
  const socket = connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk) => (received += chunk.toString()));
  const closed = new Promise<string>((resolve) => socket.on("close", () => resolve(received)));
  socket.on("error", () => undefined);
  socket.write(text);
  return { closed, socket };
}

/** Fails the test instead of hanging when the server never closes the connection. */
async function closedWithin(what: string, closed: Promise<string>, socket: Socket, ms = 20_000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the server kept ${what} open`)), ms)));
  try {
    return await Promise.race([closed, deadline]);
  } finally {
    clearTimeout(timer);
    socket.destroy();
  }
}

describe("HTTP timeouts bound what a slow client can hold (limits.*_timeout_seconds)", () => {
  let k: TestKintsugi;
  let port: number;

  before(async () => {
    k = await startTestKintsugi({ limits: { ...DEFAULT_LIMITS, headersTimeoutSeconds: 1, requestTimeoutSeconds: 2 } });
    port = Number(new URL(k.url).port);
  });
  after(async () => {
    await k.dispose();
  });

  it("closes a connection whose headers never end (headers_timeout_seconds), while /health answers", async () => {
    const slow = holdOpen(port, "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
    assert.equal((await fetch(`${k.url}/health`)).status, 200);
    const answer = await closedWithin("a connection without complete headers", slow.closed, slow.socket);
    assert.match(answer, /^(HTTP\/1\.1 408 |$)/, "a 408 or a plain close, never an answer to the half request");
  });

  it("closes a request whose body never ends (request_timeout_seconds), while /health answers", async () => {
    const slow = holdOpen(port, 'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":');
    assert.equal((await fetch(`${k.url}/health`)).status, 200);
    const answer = await closedWithin("a request without its whole body", slow.closed, slow.socket);
    assert.doesNotMatch(answer, /"data"/, "the half request is never executed");
  });
});
