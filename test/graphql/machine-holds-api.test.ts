import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sha256Hex } from "../../src/auth/tokens.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";

const SECRETS = { alice: "kintsugi_alice-secret", bob: "kintsugi_bob-secret", viewer: "kintsugi_viewer-secret" } as const;
const FIELDS = "address reason setBy setAt until source";
const HOLD = `mutation($a: IPAddress!, $r: String!, $u: DateTime) { holdMachine(address: $a, reason: $r, until: $u) { ${FIELDS} } }`;
const RELEASE = `mutation($a: IPAddress!) { releaseMachine(address: $a) { ${FIELDS} } }`;
const LIST = `{ machineHolds { ${FIELDS} } }`;

interface Answer {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

/** holdMachine, releaseMachine and machineHolds over HTTP, with tokens: who set a hold is the token's name. */
describe("machine holds through the GraphQL API", () => {
  let k: TestKintsugi;
  const gqlAs = async (who: keyof typeof SECRETS, query: string, variables: Record<string, unknown> = {}): Promise<Answer> => {
    const res = await fetch(`${k.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${SECRETS[who]}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as Answer;
  };
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, "Z");

  before(async () => {
    const tokens = [
      { name: "alice", role: "operator" as const, sha256: sha256Hex(SECRETS.alice) },
      { name: "bob", role: "operator" as const, sha256: sha256Hex(SECRETS.bob) },
      { name: "viewer", role: "viewer" as const, sha256: sha256Hex(SECRETS.viewer) },
    ];
    k = await startTestKintsugi({ auth: { anonymous: "none", tokens, allowedOrigins: [], allowedHosts: [] } });
  });
  after(() => k.dispose());

  it("holds a machine (address made canonical, setBy the token's name), replaces the hold, lists it, releases it once", async () => {
    const until = inAnHour();
    const set = await gqlAs("alice", HOLD, { a: "::ffff:10.0.0.1", r: "  firmware test  ", u: until });
    assert.equal(set.errors, undefined, JSON.stringify(set.errors));
    assert.deepEqual(
      { ...set.data?.["holdMachine"], setAt: "" },
      { address: "10.0.0.1", reason: "firmware test", setBy: "alice", setAt: "", until, source: "API" },
    );
    await gqlAs("bob", HOLD, { a: "fd00::0001", r: "rack work" });
    const replaced = await gqlAs("bob", HOLD, { a: "10.0.0.1", r: "vendor swap" });
    assert.deepEqual([replaced.data?.["holdMachine"].setBy, replaced.data?.["holdMachine"].until], ["bob", null]);

    const listed = (await gqlAs("viewer", LIST)).data?.["machineHolds"] as Array<Record<string, unknown>>;
    assert.deepEqual(
      listed.map((h) => [h["address"], h["reason"], h["setBy"], h["source"]]),
      [
        ["10.0.0.1", "vendor swap", "bob", "API"],
        ["fd00::1", "rack work", "bob", "API"],
      ],
    );

    const released = await gqlAs("alice", RELEASE, { a: "fd00::1" });
    assert.equal(released.data?.["releaseMachine"].reason, "rack work");
    const again = await gqlAs("alice", RELEASE, { a: "fd00::1" });
    assert.deepEqual(
      again.errors?.map((e) => [e.extensions?.["type"], e.extensions?.["code"]]),
      [["NOT_FOUND", "BAD_USER_INPUT"]],
    );
    assert.match(again.errors?.[0]?.message ?? "", /^machine "fd00::1" has no hold set through kintsugi/);
    assert.deepEqual(((await gqlAs("viewer", LIST)).data?.["machineHolds"] as unknown[]).length, 1);
    await gqlAs("alice", RELEASE, { a: "10.0.0.1" });
  });

  const refused: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ["an address that is an option", { a: "-rf", r: "x" }, "INVALID_HOLD", /^address: invalid IP address: "-rf"$/],
    ["an empty reason", { a: "10.0.0.2", r: " " }, "INVALID_HOLD", /^reason: must not be empty$/],
    ["a reason of 513 characters", { a: "10.0.0.2", r: "r".repeat(513) }, "INVALID_HOLD", /^reason: 513 characters, at most 512 allowed$/],
    ["an until in the past", { a: "10.0.0.2", r: "x", u: "2020-01-01T00:00:00Z" }, "INVALID_HOLD", /^until: must be after now/],
  ];
  for (const [name, variables, type, message] of refused) {
    it(`refuses ${name} with ${type} naming the field, storing nothing`, async () => {
      const answer = await gqlAs("alice", HOLD, variables);
      assert.equal(answer.errors?.[0]?.extensions?.["type"], type);
      assert.equal(answer.errors?.[0]?.extensions?.["code"], "BAD_USER_INPUT");
      assert.match(answer.errors?.[0]?.message ?? "", message);
      assert.deepEqual((await gqlAs("viewer", LIST)).data?.["machineHolds"], []);
    });
  }

  it("refuses to release what is not an address with INVALID_ADDRESS naming the field", async () => {
    const answer = await gqlAs("alice", RELEASE, { a: "node-1" });
    assert.equal(answer.errors?.[0]?.extensions?.["type"], "INVALID_ADDRESS");
    assert.match(answer.errors?.[0]?.message ?? "", /^address: invalid IP address: "node-1"$/);
  });

  it("lets a viewer list holds but not set or release one", async () => {
    const answer = await gqlAs("viewer", HOLD, { a: "10.0.0.3", r: "x" });
    assert.equal(answer.errors?.[0]?.extensions?.["type"], "FORBIDDEN");
    assert.equal((await gqlAs("viewer", RELEASE, { a: "10.0.0.3" })).errors?.[0]?.extensions?.["type"], "FORBIDDEN");
  });
});
