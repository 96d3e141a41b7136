import { breakSettings } from "../support/broken-store.js";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";

/** A real kintsugi whose log is kept, one parsed pino record per line. */
function loggedKintsugi(): { start: () => Promise<TestKintsugi>; logged: Array<{ level: number; msg: string; err?: { message: string } }> } {
  const logged: Array<{ level: number; msg: string; err?: { message: string } }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n")) if (line !== "") logged.push(JSON.parse(line));
      done();
    },
  });
  return { logged, start: () => startTestKintsugi({}, { logger: pino({ level: "debug" }, sink) }) };
}

const JSON_TYPE = { "content-type": "application/json" };
// Apollo refuses a GET (and a "simple" POST) as a possible CSRF unless one of these headers is set.
const PREFLIGHT = { "apollo-require-preflight": "1" };
const post = (body: unknown, headers: Record<string, string> = JSON_TYPE): RequestInit => ({
  method: "POST",
  headers,
  body: typeof body === "string" ? body : JSON.stringify(body),
});
const get = (params: Record<string, string>): [string, RequestInit] => [`/graphql?${new URLSearchParams(params)}`, { method: "GET", headers: PREFLIGHT }];
const HASH = { persistedQuery: { version: 1, sha256Hash: "a".repeat(64) } };

/** Apollo's own client errors, each as a client sends it, with the status and code Apollo answers it with. */
const CLIENT_ERRORS: ReadonlyArray<{ name: string; request: [string, RequestInit]; status: number; code: string }> = [
  {
    name: "an unknown persisted query (kintsugi keeps none)",
    request: ["/graphql", post({ extensions: HASH })],
    status: 200,
    code: "PERSISTED_QUERY_NOT_SUPPORTED",
  },
  {
    name: "a persisted query with its text",
    request: ["/graphql", post({ query: "{ repairQueueEnabled }", extensions: HASH })],
    status: 200,
    code: "PERSISTED_QUERY_NOT_SUPPORTED",
  },
  { name: "a body without a query", request: ["/graphql", post({})], status: 400, code: "BAD_REQUEST" },
  { name: "an empty body", request: ["/graphql", post("")], status: 400, code: "BAD_REQUEST" },
  { name: "a JSON body that is not an object", request: ["/graphql", post("null")], status: 400, code: "BAD_REQUEST" },
  { name: "a query that is not a string", request: ["/graphql", post({ query: 5 })], status: 400, code: "BAD_REQUEST" },
  { name: "variables as a JSON string", request: ["/graphql", post({ query: "{ repairQueueEnabled }", variables: "{}" })], status: 400, code: "BAD_REQUEST" },
  {
    name: "an operationName that is not a string",
    request: ["/graphql", post({ query: "{ repairQueueEnabled }", operationName: 5 })],
    status: 400,
    code: "BAD_REQUEST",
  },
  { name: "a batch (batching is off)", request: ["/graphql", post([{ query: "{ repairQueueEnabled }" }])], status: 400, code: "BAD_REQUEST" },
  {
    name: "a text/plain POST (CSRF)",
    request: ["/graphql", post("{ repairQueueEnabled }", { "content-type": "text/plain" })],
    status: 400,
    code: "BAD_REQUEST",
  },
  {
    name: "a GET without a preflight header (CSRF)",
    request: ["/graphql?query=%7BrepairQueueEnabled%7D", { method: "GET" }],
    status: 400,
    code: "BAD_REQUEST",
  },
  { name: "a GET without a query", request: get({}), status: 400, code: "BAD_REQUEST" },
  { name: "a GET with variables that are not JSON", request: get({ query: "{ repairQueueEnabled }", variables: "{" }), status: 400, code: "BAD_REQUEST" },
  { name: "a mutation over GET", request: get({ query: "mutation { setRepairQueueEnabled(enabled: false) }" }), status: 405, code: "BAD_REQUEST" },
  { name: "a PUT", request: ["/graphql", { method: "PUT", headers: JSON_TYPE, body: "{}" }], status: 405, code: "BAD_REQUEST" },
  {
    name: "an Accept header JSON is not in",
    request: ["/graphql", { ...post({ query: "{ repairQueueEnabled }" }), headers: { ...JSON_TYPE, accept: "text/html" } }],
    status: 406,
    code: "BAD_REQUEST",
  },
  { name: "a syntax error", request: ["/graphql", post({ query: "{ repairQueueEnabled" })], status: 400, code: "GRAPHQL_PARSE_FAILED" },
  { name: "an unknown field", request: ["/graphql", post({ query: "{ nope }" })], status: 400, code: "GRAPHQL_VALIDATION_FAILED" },
  { name: "a subscription over HTTP", request: ["/graphql", post({ query: "subscription { __typename }" })], status: 400, code: "GRAPHQL_VALIDATION_FAILED" },
  {
    name: "a variable of the wrong type",
    request: ["/graphql", post({ query: "query($e: Boolean!) { __typename @include(if: $e) }", variables: { e: "yes" } })],
    status: 400,
    code: "BAD_USER_INPUT",
  },
  {
    name: "a required variable missing",
    request: ["/graphql", post({ query: "query($e: Boolean!) { __typename @include(if: $e) }" })],
    status: 400,
    code: "BAD_USER_INPUT",
  },
  {
    name: "two operations and no operationName",
    request: ["/graphql", post({ query: "query A { __typename } query B { __typename }" })],
    status: 400,
    code: "OPERATION_RESOLUTION_FAILURE",
  },
  {
    name: "an operationName the document lacks",
    request: ["/graphql", post({ query: "query A { __typename }", operationName: "B" })],
    status: 400,
    code: "OPERATION_RESOLUTION_FAILURE",
  },
];

/** Sends `head` (and `body`) on a raw connection and gives back everything the server answered until it closed. */
function rawRequest(port: number, head: string, body = ""): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
    socket.end(`${head}\r\n\r\n${body}`);
  });
}

describe("client errors over HTTP: answered as the client's, never logged as unexpected", () => {
  const { start, logged } = loggedKintsugi();
  let k: TestKintsugi;
  before(async () => {
    k = await start();
  });
  after(() => k.dispose());

  for (const { name, request, status, code } of CLIENT_ERRORS) {
    it(name, async () => {
      const seen = logged.length;
      const res = await fetch(`${k.url}${request[0]}`, request[1]);
      const body = (await res.json()) as { errors?: Array<{ message: string; extensions?: { code?: string } }> };
      assert.equal(res.status, status);
      assert.equal(body.errors?.[0]?.extensions?.code, code, JSON.stringify(body));
      assert.notEqual(body.errors?.[0]?.message, "internal server error");
      assert.deepEqual(
        logged.slice(seen).filter((l) => l.level >= 40),
        [],
        "nothing logged as a warning or an error",
      );
    });
  }

  const badTargets = ["http://[", "//[/graphql", "http://:99999/graphql"];
  for (const target of badTargets) {
    it(`a request target that is not a URL (${target}) is answered 400`, async () => {
      const seen = logged.length;
      const answer = await rawRequest(Number(new URL(k.url).port), `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close`);
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.match(answer, /"code":"BAD_REQUEST"/);
      assert.deepEqual(
        logged.slice(seen).filter((l) => l.level >= 40),
        [],
      );
    });
  }

  it("an unexpected error is still masked for the client and logged", async () => {
    const seen = logged.length;
    const restore = breakSettings(k);
    try {
      const res = await k.gql(`{ repairQueueEnabled }`);
      assert.deepEqual(res.errors?.[0], {
        message: "internal server error",
        locations: [{ line: 1, column: 3 }],
        path: ["repairQueueEnabled"],
        extensions: { type: "INTERNAL_SERVER_ERROR", code: "INTERNAL_SERVER_ERROR" },
      });
    } finally {
      restore();
    }
    const errors = logged.slice(seen).filter((l) => l.level >= 50);
    assert.deepEqual(
      errors.map((l) => [l.msg, l.err?.message]),
      [["unexpected error", "no such table: settings"]],
    );
  });
});

describe("aborted uploads end quietly", () => {
  /**
   * Sends the headers of a 100 kB POST asking for a 100 Continue, which node's server sends just as it hands the
   * request to kintsugi; then part of the body, and resets the connection.
   */
  function abortedUpload(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write("POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n");
      });
      socket.once("data", (chunk: Buffer) => {
        assert.match(chunk.toString(), /^HTTP\/1\.1 100 Continue/);
        socket.write(`{"query": "${"x".repeat(1000)}`, () => socket.resetAndDestroy());
      });
      socket.on("error", reject);
      socket.on("close", () => resolve());
    });
  }

  it("50 clients that reset mid-body leave no error in the log, and the server goes on answering", async () => {
    const { start, logged } = loggedKintsugi();
    const k = await start();
    try {
      const port = Number(new URL(k.url).port);
      for (let i = 0; i < 50; i++) await abortedUpload(port);
      assert.equal((await fetch(`${k.url}/health`)).status, 200);
      assert.deepEqual((await k.gql(`{ repairQueueEnabled }`)).data, { repairQueueEnabled: true });
    } finally {
      // Closing waits for every connection, the aborted ones included, so whatever they log is in by then.
      await k.dispose();
    }
    assert.deepEqual(
      logged.filter((l) => l.level >= 40),
      [],
      "nothing logged as a warning or an error",
    );
  });
});
