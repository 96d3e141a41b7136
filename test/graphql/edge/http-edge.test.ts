import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import WebSocket from "ws";
import { accessPolicyFor } from "../../../src/auth/access-policy.js";
import { EdgeGuard } from "../../../src/auth/edge-guard.js";
import { admitHttp, webSocketEdge } from "../../../src/graphql/edge/http-edge.js";
import { startTestKintsugi, type TestKintsugi } from "../../support/kintsugi-server.js";

/** The guard of a listener on 0.0.0.0 whose clients without a token are viewers. */
function networkGuard(): EdgeGuard {
  const decision = accessPolicyFor("0.0.0.0", { anonymous: "viewer", tokens: [], allowedOrigins: [], allowedHosts: ["kintsugi.internal"] });
  assert.ok(decision.ok);
  return new EdgeGuard(decision.policy);
}

const request = (host: string): IncomingMessage => ({ headers: { host }, socket: new Socket() }) as unknown as IncomingMessage;

/** What onConnect did for a connection_init without a token, on a handshake naming `host`. */
function connect(host: string): { accepted: boolean; closed: Array<[number, string]> } {
  const edge = webSocketEdge(networkGuard());
  const closed: Array<[number, string]> = [];
  const ctx = { connectionParams: {}, extra: { request: request(host), socket: { close: (code: number, reason: string) => closed.push([code, reason]) } } };
  const accepted = edge.onConnect(ctx as unknown as Parameters<typeof edge.onConnect>[0]);
  return { accepted, closed };
}

describe("the edge passes each request's Host to the anonymous-client rule of a network listener", () => {
  it("HTTP: a rebound name without a token is refused with 403; the listener's address and an allowed name pass", () => {
    const refused = admitHttp(networkGuard(), request("attacker.example:10180"));
    assert.deepEqual(refused.ok ? "admitted" : [refused.status, refused.type], [403, "FORBIDDEN"]);
    assert.equal(admitHttp(networkGuard(), request("10.0.0.5:10180")).ok, true);
    assert.equal(admitHttp(networkGuard(), request("kintsugi.internal")).ok, true);
  });

  it("WebSocket: a rebound name without a token is closed with 4403 and the reason; the listener's address passes", () => {
    const refused = connect("attacker.example:10180");
    assert.equal(refused.accepted, false);
    assert.equal(refused.closed.length, 1);
    assert.equal(refused.closed[0]?.[0], 4403);
    assert.match(refused.closed[0]?.[1] ?? "", /^Host "attacker\.example:10180" is not an IP address/);
    assert.ok(Buffer.byteLength(refused.closed[0]?.[1] ?? "") <= 123, "a close reason fits in 123 bytes");
    assert.deepEqual(connect("10.0.0.5:10180"), { accepted: true, closed: [] });
  });
});

/** The answer to a WebSocket handshake that was refused before the upgrade. */
function refusedHandshake(url: string, headers: Record<string, string>): Promise<{ status: number; contentType: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws", { headers });
    socket.on("open", () => {
      socket.close();
      reject(new Error("the handshake was accepted"));
    });
    socket.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"], body }));
    });
    socket.on("error", (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

describe("a refused WebSocket handshake answers as the HTTP side does", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi({ auth: { anonymous: "viewer", tokens: [], allowedOrigins: [], allowedHosts: [] } });
  });
  after(async () => {
    await k.dispose();
  });

  it("403 with a JSON error naming the reason, never an HTML page holding the refused Host", async () => {
    const answer = await refusedHandshake(k.url, { host: "attacker.example:10180" });
    assert.equal(answer.status, 403);
    assert.equal(answer.contentType, "application/json; charset=utf-8");
    const body = JSON.parse(answer.body) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
    assert.match(body.errors[0]?.message ?? "", /^Host "attacker\.example:10180" is not a loopback name/);
    assert.deepEqual(body.errors[0]?.extensions, { type: "FORBIDDEN", code: "FORBIDDEN" });
    const foreign = await refusedHandshake(k.url, { origin: "https://attacker.example" });
    assert.equal(foreign.contentType, "application/json; charset=utf-8");
    assert.match(foreign.body, /is not kintsugi's own/);
  });
});
