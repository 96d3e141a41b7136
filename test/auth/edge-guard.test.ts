import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { accessPolicyFor, type AuthConfig } from "../../src/auth/access-policy.js";
import { EdgeGuard, type Admission } from "../../src/auth/edge-guard.js";
import { sha256Hex } from "../../src/auth/tokens.js";

const TOKEN = "kintsugi_operator-secret";

function guardFor(listenHost: string, auth: Partial<AuthConfig>): EdgeGuard {
  const config: AuthConfig = {
    anonymous: "viewer",
    tokens: [{ name: "ci-bot", role: "operator", sha256: sha256Hex(TOKEN) }],
    allowedOrigins: [],
    allowedHosts: ["kintsugi.internal"],
    clientCertificates: [{ cn: "dashboard", role: "viewer" }],
    ...auth,
  };
  const decision = accessPolicyFor(listenHost, config);
  assert.ok(decision.ok);
  return new EdgeGuard(decision.policy);
}

/** Who was admitted, or the refusal's status and message. */
function outcome(admission: Admission): string {
  return admission.ok ? `${admission.actor.name} (${admission.actor.role})` : `${admission.status} ${admission.type}: ${admission.message}`;
}

describe("EdgeGuard: anonymous clients on a listener that is not loopback need an IP-literal or allowed Host", () => {
  const network = guardFor("0.0.0.0", {});
  const cases: Array<{ name: string; guard: EdgeGuard; authorization?: string; cn?: string; host: string | undefined; admitted: RegExp }> = [
    { name: "no token, the listener's address", guard: network, host: "10.0.0.5:10180", admitted: /^anonymous \(viewer\)$/ },
    { name: "no token, an allowed name", guard: network, host: "kintsugi.internal:10180", admitted: /^anonymous \(viewer\)$/ },
    {
      name: "no token, a rebound name",
      guard: network,
      host: "attacker.example:10180",
      admitted: /^403 FORBIDDEN: Host "attacker\.example:10180" is not an IP address or one of auth\.allowed_hosts/,
    },
    {
      name: "a token decides whatever the name (a browser never adds one by itself)",
      guard: network,
      authorization: `Bearer ${TOKEN}`,
      host: "kintsugi.example",
      admitted: /^ci-bot \(operator\)$/,
    },
    {
      name: "an unknown token is refused as before",
      guard: network,
      authorization: "Bearer kintsugi_wrong",
      host: "10.0.0.5",
      admitted: /^401 UNAUTHENTICATED: unknown token$/,
    },
    {
      name: "a mapped client certificate decides whatever the name",
      guard: network,
      cn: "dashboard",
      host: "kintsugi.example",
      admitted: /^dashboard \(viewer\)$/,
    },
    {
      name: "anonymous none: no token is 401 whatever the name",
      guard: guardFor("0.0.0.0", { anonymous: "none" }),
      host: "10.0.0.5",
      admitted: /^401 UNAUTHENTICATED/,
    },
    {
      name: "a loopback listener: the Host rule has decided, anonymous passes here",
      guard: guardFor("127.0.0.1", {}),
      host: "localhost:10180",
      admitted: /^anonymous \(viewer\)$/,
    },
  ];
  for (const { name, guard, authorization, cn, host, admitted } of cases) {
    it(`HTTP: ${name}`, () => assert.match(outcome(guard.authenticate(authorization, cn ?? null, host)), admitted));
    it(`WebSocket: ${name}`, () => {
      const params = authorization === undefined ? {} : { authorization };
      assert.match(outcome(guard.authenticateConnection(params, undefined, cn ?? null, host)), admitted);
    });
  }
});

describe("EdgeGuard keeps verdicts only under what they depend on", () => {
  it("a document an admin may run stays forbidden to a viewer after the admin's verdict was kept", async () => {
    const { parse } = await import("graphql");
    const guard = guardFor("127.0.0.1", {});
    const document = parse("mutation { setRepairQueueEnabled(enabled: true) }");
    assert.equal(guard.forbidden({ name: "root", role: "admin" }, document), null);
    assert.match(guard.forbidden({ name: "grafana", role: "viewer" }, document)?.message ?? "", /needs the operator role; token "grafana" has the viewer role/);
    assert.equal(guard.forbidden({ name: "root", role: "admin" }, document), null);
  });

  it("the Host and Origin verdicts of one pair are the same on every request, and another pair is judged afresh", () => {
    const guard = guardFor("127.0.0.1", { allowedOrigins: ["https://ops.example.com"] });
    for (let i = 0; i < 2; i++) {
      assert.equal(guard.browserRefusal("localhost:10180", "https://ops.example.com"), null);
      assert.match(guard.browserRefusal("localhost:10180", "https://attacker.example")?.message ?? "", /is not kintsugi's own or one of auth\.allowed_origins/);
      assert.match(guard.browserRefusal("attacker.example", undefined)?.message ?? "", /is not a loopback name or one of auth\.allowed_hosts/);
    }
  });
});
