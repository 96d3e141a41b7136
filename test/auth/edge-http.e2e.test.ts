import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import WebSocket from "ws";
import { sha256Hex } from "../../src/auth/tokens.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { wsConnection } from "../support/ws-operations.js";

const VIEWER = "kintsugi_viewer-secret";

/** A raw HTTP request with exactly these headers (fetch does not let a test choose Host). */
function raw(
  url: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port,
        path,
        method: body === undefined ? "GET" : "POST",
        headers: { ...(body !== undefined && { "content-type": "application/json" }), ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The HTTP status of a WebSocket handshake refused before the upgrade, or "open" when it was accepted. */
function handshake(url: string, headers: Record<string, string>): Promise<number | "open"> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws", { headers });
    socket.on("open", () => {
      socket.close();
      resolve("open");
    });
    socket.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on("error", (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

const QUERY = JSON.stringify({ query: "{ repairQueueEnabled }" });

describe("the edge over HTTP: Host and Origin, open and protected endpoints", () => {
  let k: TestKintsugi;
  let loopbackDefault: TestKintsugi;

  before(async () => {
    k = await startTestKintsugi({
      auth: {
        anonymous: "none",
        tokens: [{ name: "grafana", role: "viewer", sha256: sha256Hex(VIEWER) }],
        allowedOrigins: ["https://ops.example.com"],
        allowedHosts: ["kintsugi.internal"],
      },
    });
    loopbackDefault = await startTestKintsugi({ auth: null });
  });
  after(async () => {
    await k.dispose();
    await loopbackDefault.dispose();
  });

  it("DNS rebinding: a request naming attacker.example to a loopback listener is refused, whatever the path and token", async () => {
    const { host, port } = new URL(k.url);
    for (const path of ["/graphql", "/metrics", "/version", "/", "/playground"]) {
      const res = await raw(k.url, path, { host: `attacker.example:${port}`, authorization: `Bearer ${VIEWER}` }, path === "/graphql" ? QUERY : undefined);
      assert.equal(res.status, 403, path);
      assert.match(JSON.parse(res.body).errors[0].message, /^Host "attacker\.example:\d+" is not a loopback name/);
      assert.doesNotMatch(res.body, /repairQueueEnabled|version/);
    }
    assert.equal((await raw(k.url, "/graphql", { host, authorization: `Bearer ${VIEWER}` }, QUERY)).status, 200, "the listener's own address passes");
    assert.equal((await raw(k.url, "/graphql", { host: `localhost:${port}`, authorization: `Bearer ${VIEWER}` }, QUERY)).status, 200, "localhost passes");
    assert.equal(
      (await raw(k.url, "/graphql", { host: "kintsugi.internal", authorization: `Bearer ${VIEWER}` }, QUERY)).status,
      200,
      "a configured name passes",
    );
  });

  it("CORS: a configured origin may preflight and read the answers; kintsugi's own and other origins get no CORS headers", async () => {
    const { hostname, port, host } = new URL(k.url);
    const preflight = (origin: string) =>
      new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
        const headers = { host, origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" };
        const req = request({ hostname, port, path: "/graphql", method: "OPTIONS", headers }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        });
        req.on("error", reject);
        req.end();
      });
    const allowed = await preflight("https://ops.example.com");
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers["access-control-allow-origin"], "https://ops.example.com");
    assert.equal(allowed.headers["access-control-allow-methods"], "GET, POST");
    assert.match(String(allowed.headers["access-control-allow-headers"]), /authorization/);
    assert.equal(allowed.headers["access-control-allow-credentials"], undefined, "cookies are never a credential here");
    const other = await preflight("https://evil.example");
    assert.equal(other.status, 403);
    assert.equal(other.headers["access-control-allow-origin"], undefined);

    const answer = await raw(k.url, "/graphql", { host, origin: "https://ops.example.com", authorization: `Bearer ${VIEWER}` }, QUERY);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers["access-control-allow-origin"], "https://ops.example.com");
    assert.match(String(answer.headers["vary"]), /Origin/);
    const own = await raw(k.url, "/graphql", { host, origin: `http://${host}`, authorization: `Bearer ${VIEWER}` }, QUERY);
    assert.equal(own.status, 200);
    assert.equal(own.headers["access-control-allow-origin"], undefined, "same-origin needs no CORS");
    const refused = await raw(k.url, "/graphql", { host, origin: "https://evil.example", authorization: `Bearer ${VIEWER}` }, QUERY);
    assert.equal(refused.status, 403);
    assert.equal(refused.headers["access-control-allow-origin"], undefined);
  });

  it("DNS rebinding over WebSocket: the handshake is refused with 403", async () => {
    assert.equal(await handshake(k.url, { host: "attacker.example" }), 403);
    assert.equal(await handshake(k.url, {}), "open");
  });

  it("a cross-site request is refused; kintsugi's own origin and an allowed origin pass", async () => {
    const auth = { authorization: `Bearer ${VIEWER}` };
    const own = new URL(k.url).origin;
    const foreign = await raw(k.url, "/graphql", { ...auth, origin: "https://attacker.example" }, QUERY);
    assert.equal(foreign.status, 403);
    assert.deepEqual(JSON.parse(foreign.body).errors[0].extensions, { type: "FORBIDDEN", code: "FORBIDDEN" });
    assert.equal((await raw(k.url, "/graphql", { ...auth, origin: own }, QUERY)).status, 200);
    assert.equal((await raw(k.url, "/graphql", { ...auth, origin: "https://ops.example.com" }, QUERY)).status, 200);
    assert.equal(await handshake(k.url, { origin: "https://attacker.example" }), 403, "cross-site WebSocket hijacking");
    assert.equal(await handshake(k.url, { origin: own }), "open");
  });

  it("/health and /version stay open for probes; /metrics needs a viewer", async () => {
    assert.equal((await fetch(`${k.url}/health`)).status, 200);
    assert.equal((await fetch(`${k.url}/version`)).status, 200);
    const anonymous = await fetch(`${k.url}/metrics`);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get("www-authenticate"), 'Bearer realm="kintsugi"');
    assert.equal((await fetch(`${k.url}/metrics`, { headers: { authorization: "Bearer kintsugi_wrong" } })).status, 401);
    const viewer = await fetch(`${k.url}/metrics`, { headers: { authorization: `Bearer ${VIEWER}` } });
    assert.equal(viewer.status, 200);
    assert.match(await viewer.text(), /kintsugi_/);
  });

  it("an Authorization header that is not Bearer is refused with 401", async () => {
    const res = await fetch(`${k.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Basic ${Buffer.from("a:b").toString("base64")}` },
      body: QUERY,
    });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { errors: Array<{ message: string }> }).errors[0]?.message, "the Authorization header must be Bearer <token>");
  });

  it("graphql-ws takes the token as { token } and under { headers } too, and refuses one that is not a string with 4401", async () => {
    for (const params of [{ token: VIEWER }, { headers: { Authorization: `Bearer ${VIEWER}` } }]) {
      const connection = wsConnection(k.url, params);
      try {
        assert.deepEqual(
          (await connection.run("{ repairQueueEnabled }")).results,
          [{ data: { repairQueueEnabled: true } }],
          JSON.stringify(Object.keys(params)),
        );
      } finally {
        await connection.dispose();
      }
    }
    const bad = wsConnection(k.url, { authorization: 42 });
    try {
      assert.equal((await bad.closed).code, 4401);
    } finally {
      await bad.dispose();
    }
  });

  it("GraphiQL's routes (its page at / and at sabakan's /playground) forbid framing and sniffing and send a CSP", async () => {
    for (const path of ["/", "/playground", "/graphiql/graphiql.js"]) {
      const res = await fetch(`${k.url}${path}`);
      assert.equal(res.status, 200, `${path}: the page needs no token, the API it calls does`);
      assert.equal(res.headers.get("x-frame-options"), "DENY", path);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
      assert.match(res.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/, path);
      assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'self'/, path);
    }
  });

  it("on loopback without an auth section, the browser's own page works as before: same-origin queries, mutations and subscriptions", async () => {
    const own = new URL(loopbackDefault.url).origin;
    const page = await raw(loopbackDefault.url, "/", { origin: own });
    assert.equal(page.status, 200);
    const mutation = JSON.stringify({ query: 'mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.9.9.9") { index } }' });
    const added = await raw(loopbackDefault.url, "/graphql", { origin: own }, mutation);
    assert.equal(added.status, 200, added.body);
    assert.equal(await handshake(loopbackDefault.url, { origin: own }), "open");
    const connection = wsConnection(loopbackDefault.url, undefined, { origin: own });
    try {
      assert.deepEqual((await connection.run("{ repairQueueEnabled }")).results, [{ data: { repairQueueEnabled: true } }]);
    } finally {
      await connection.dispose();
    }
  });
});
