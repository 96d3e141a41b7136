import { breakSettings } from "../support/broken-store.js";
import { hostname } from "node:os";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { MAX_BODY_BYTES } from "../../src/graphql/http-server.js";
import { VERSION } from "../../src/version.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";

describe("HTTP endpoints", () => {
  let k: TestKintsugi;
  // What the server logs, one parsed pino record per line.
  const logged: Array<{ level: number; msg: string; err?: { message: string; stack?: string } }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n")) if (line !== "") logged.push(JSON.parse(line));
      done();
    },
  });

  before(async () => {
    k = await startTestKintsugi({}, { logger: pino({ level: "error" }, sink) });
  });
  after(() => k.dispose());

  it("answers GET /health and GET /version as sabakan does", async () => {
    const health = await fetch(`${k.url}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok", store: "sqlite", replica: hostname(), leader: true, leaderName: hostname() });
    const version = await fetch(`${k.url}/version`);
    assert.deepEqual(await version.json(), { version: VERSION });
    assert.match(VERSION, /^\d+\.\d+\.\d+/);
  });

  it("answers 404 for other paths", async () => {
    assert.equal((await fetch(`${k.url}/nope`)).status, 404);
  });

  it("serves the README's first query", async () => {
    assert.deepEqual(await k.gql(`{ repairQueueEnabled }`), { status: 200, data: { repairQueueEnabled: true }, errors: undefined });
  });

  it("refuses a body that is not JSON with 400", async () => {
    const res = await fetch(`${k.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: "{ not json" });
    assert.equal(res.status, 400);
    assert.match(JSON.stringify(await res.json()), /request body is not valid JSON/);
  });

  it("refuses a body over the size bound with 413", async () => {
    const res = await fetch(`${k.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `{ repairQueueEnabled }`, variables: { pad: "x".repeat(MAX_BODY_BYTES) } }),
    });
    assert.equal(res.status, 413);
  });

  it("rejects a syntax error with Apollo's code", async () => {
    const res = await k.gql(`{ repairQueueEnabled `);
    assert.equal(res.errors?.[0]?.extensions?.code, "GRAPHQL_PARSE_FAILED");
  });

  it("masks an unexpected error, logs it, and goes on serving", async () => {
    // Break the store behind the server's back: the resolver then fails in a way no client caused.
    const restore = breakSettings(k);
    try {
      const res = await k.gql(`{ repairQueueEnabled }`);
      assert.equal(res.errors?.[0]?.message, "internal server error");
      assert.deepEqual(res.errors?.[0]?.extensions, { type: "INTERNAL_SERVER_ERROR", code: "INTERNAL_SERVER_ERROR" });
      assert.doesNotMatch(JSON.stringify(res), /settings|SQLITE|no such table/i);
    } finally {
      restore();
    }
    assert.deepEqual((await k.gql(`{ repairQueueEnabled }`)).data, { repairQueueEnabled: true });
    const errors = logged.filter((l) => l.level >= 50);
    assert.equal(errors.length, 1, JSON.stringify(logged));
    assert.equal(errors[0]?.msg, "unexpected error");
    assert.match(errors[0]?.err?.message ?? "", /no such table: settings/, "the log has the cause the client was not shown");
  });
});
