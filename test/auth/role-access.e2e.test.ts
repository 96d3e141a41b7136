import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FIELD_ROLES } from "../../src/auth/field-roles.js";
import { ROLES, roleIncludes, type Role } from "../../src/auth/roles.js";
import { sha256Hex } from "../../src/auth/tokens.js";
import { buildSchema } from "../../src/graphql/schema.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { wsConnection, type WsOutcome } from "../support/ws-operations.js";
import { rootFieldOperations } from "./operation-samples.js";

const TOKENS: Record<Role, string> = { viewer: "kintsugi_viewer-secret", operator: "kintsugi_operator-secret", admin: "kintsugi_admin-secret" };
const OPERATIONS = rootFieldOperations(buildSchema());

type Outcome = "allowed" | "forbidden" | "unauthenticated";

/** What each root field should come to for a client with `role` (null: no token on a server that needs one). */
function expected(role: Role | null): Record<string, Outcome> {
  return Object.fromEntries(
    OPERATIONS.map(({ type, field }) => {
      const needed = FIELD_ROLES[type][field] as Role;
      return [`${type}.${field}`, role === null ? "unauthenticated" : roleIncludes(role, needed) ? "allowed" : "forbidden"];
    }),
  );
}

async function overHttp(url: string, token: string | null): Promise<Record<string, Outcome>> {
  const outcomes: Record<string, Outcome> = {};
  for (const { type, field, document } of OPERATIONS) {
    const res = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
      body: JSON.stringify({ query: document }),
    });
    const body = (await res.json()) as { errors?: Array<{ message: string; extensions?: { type?: string; requiredRole?: string } }> };
    const forbidden = body.errors?.find((e) => e.extensions?.type === "FORBIDDEN");
    if (res.status === 401) {
      assert.equal(body.errors?.[0]?.extensions?.type, "UNAUTHENTICATED");
      outcomes[`${type}.${field}`] = "unauthenticated";
    } else if (forbidden) {
      assert.equal(res.status, 403);
      assert.match(forbidden.message, new RegExp(`^${type}\\.${field} needs the ${FIELD_ROLES[type][field]} role`));
      outcomes[`${type}.${field}`] = "forbidden";
    } else {
      outcomes[`${type}.${field}`] = "allowed";
    }
  }
  return outcomes;
}

function classify(outcome: WsOutcome): Outcome {
  const errors = Array.isArray(outcome.error) ? (outcome.error as Array<{ extensions?: { type?: string } }>) : [];
  if (errors.some((e) => e.extensions?.type === "FORBIDDEN")) return "forbidden";
  if (outcome.error && typeof outcome.error === "object" && "code" in outcome.error && outcome.error.code === 4401) return "unauthenticated";
  return "allowed";
}

async function overWebSocket(url: string, token: string | null): Promise<Record<string, Outcome>> {
  const connection = wsConnection(url, token === null ? undefined : { authorization: `Bearer ${token}` });
  const outcomes: Record<string, Outcome> = {};
  try {
    for (const { type, field, document } of OPERATIONS) {
      if (type !== "Subscription") {
        outcomes[`${type}.${field}`] = classify(await connection.run(document));
        continue;
      }
      // A subscription runs until unsubscribed: a query sent after it on the same socket is answered after the
      // server accepted or refused the subscription.
      let release: () => void = () => undefined;
      const running = connection.run(document, new Promise<void>((resolve) => (release = resolve)));
      await connection.run("{ __typename }");
      release();
      outcomes[`${type}.${field}`] = classify(await running);
    }
  } finally {
    await connection.dispose();
  }
  return outcomes;
}

describe("each role is allowed exactly its fields (HTTP and graphql-ws, every root field)", () => {
  let k: TestKintsugi;
  let loopbackDefault: TestKintsugi;

  before(async () => {
    const tokens = ROLES.map((role) => ({ name: `${role}-token`, role, sha256: sha256Hex(TOKENS[role]) }));
    k = await startTestKintsugi({ auth: { anonymous: "none", tokens, allowedOrigins: [], allowedHosts: [] } });
    loopbackDefault = await startTestKintsugi({ auth: null });
  });
  after(async () => {
    await k.dispose();
    await loopbackDefault.dispose();
  });

  for (const role of ROLES) {
    it(`a ${role} token over HTTP`, async () => assert.deepEqual(await overHttp(k.url, TOKENS[role]), expected(role)));
    it(`a ${role} token over WebSocket`, async () => assert.deepEqual(await overWebSocket(k.url, TOKENS[role]), expected(role)));
  }

  it("no token over HTTP, where anonymous clients may do nothing: 401 for every field", async () => {
    assert.deepEqual(await overHttp(k.url, null), expected(null));
  });

  it("no token over WebSocket, where anonymous clients may do nothing: the socket closes with 4401", async () => {
    const connection = wsConnection(k.url);
    try {
      assert.deepEqual(await connection.closed, { code: 4401, reason: "this server needs a token: send Authorization: Bearer <token>" });
    } finally {
      await connection.dispose();
    }
  });

  it("an unknown token: HTTP 401 and close 4401", async () => {
    assert.deepEqual(new Set(Object.values(await overHttp(k.url, "kintsugi_guessed"))), new Set(["unauthenticated"]));
    const connection = wsConnection(k.url, { authorization: "Bearer kintsugi_guessed" });
    try {
      assert.equal((await connection.closed).code, 4401);
    } finally {
      await connection.dispose();
    }
  });

  it("no token on a loopback listener without an auth section acts as an operator, over HTTP and WebSocket", async () => {
    assert.deepEqual(await overHttp(loopbackDefault.url, null), expected("operator"));
    assert.deepEqual(await overWebSocket(loopbackDefault.url, null), expected("operator"));
  });
});
