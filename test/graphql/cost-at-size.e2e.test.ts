import { COUNT_MACHINES, SEARCH_MACHINES } from "../../src/adapters/sabakan-documents.js";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { getIntrospectionQuery } from "graphql";
import { sha256Hex } from "../../src/auth/tokens.js";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { READS } from "../../scripts/status-page/queries.js";
import { ABUSE_SHAPES, CKE_SEARCH_MACHINES, EVERY_MACHINE_FIELD } from "../support/cost-shapes.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { assertQuickHealth } from "../support/quick-health.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { wsConnection } from "../support/ws-operations.js";

// The cost shapes (test/support/cost-shapes.ts), from a viewer token, against the real `kintsugi serve` with sabakan serving 10,000 machines.
const FLEET = 10_000;
const VIEWER = "kintsugi_viewer-token-for-the-size-tests";
/** Above one answer of every machine field over the fleet (about 4.6 MB), below two. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

interface Answer {
  readonly status: number;
  readonly bytes: number;
  readonly data?: Record<string, unknown> | null;
  readonly errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }>;
}

describe("the cost model and the answer size at a data center's size (kintsugi serve, 10,000 machines, a viewer token)", () => {
  let sabakan: FakeSabakan;
  let server: ServeProcess;
  let url: string;
  const dir = tempDir();

  const ask = async (query: string, variables?: Record<string, unknown>): Promise<Answer> => {
    const res = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${VIEWER}` },
      body: JSON.stringify({ query, variables }),
    });
    const text = await res.text();
    return { status: res.status, bytes: Buffer.byteLength(text), ...(JSON.parse(text) as object) };
  };
  const healthy = () => assertQuickHealth(url);
  // What sabakan was asked through the API: not the fleet count at start (retried in the background on a loaded
  // machine), nor the sabakan trigger's poll, which runs at every minute's start (auto-repair is on by default).
  const asked = () => sabakan.requests.filter((r) => r.query !== COUNT_MACHINES && r.query !== SEARCH_MACHINES);

  before(async () => {
    sabakan = await startFakeSabakan();
    for (let i = 0; i < FLEET; i++) {
      sabakan.addMachine({
        serial: `s${String(i).padStart(5, "0")}`,
        rack: Math.floor(i / 30),
        indexInRack: (i % 30) + 1,
        ipv4: [`10.${Math.floor(i / 250)}.${i % 250}.1`],
        bmcIPv4: `10.200.${Math.floor(i / 250)}.${i % 250}`,
        labels: { product: "R640", datacenter: "dc1" },
      });
    }
    writeFileSync(
      join(dir.path, "kintsugi.yaml"),
      `listen: "127.0.0.1:0"
database: ./kintsugi.db
sabakan:
  url: "${sabakan.url}"
limits:
  max_response_bytes: ${MAX_RESPONSE_BYTES}
auth:
  anonymous: none
  tokens:
    - { name: dashboard, role: viewer, sha256: "${sha256Hex(VIEWER)}" }
`,
    );
    server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
    url = await server.url;
  });
  after(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
    await sabakan.close();
    dir.remove();
  });

  // First, before anything else asked sabakan through the server: kintsugi counted the fleet at start.
  it("refuses the first request after a start at the real fleet's size: 30 aliased searchMachines, estimated over 10,000 machines", async () => {
    const first = ABUSE_SHAPES[0]!;
    const counted = asked().length;
    const [answer] = await Promise.all([ask(first.query), healthy()]);
    assert.equal(answer.status, 400);
    assert.equal(
      answer.errors?.[0]?.message,
      `the operation's estimated cost is ${first.estimate}, more than the limit of ${DEFAULT_LIMITS.maxCost} (limits.max_cost)`,
    );
    assert.equal(asked().length, counted, "sabakan was not asked");
    assert.equal(counted, 0, "sabakan was asked nothing through the API before");
    assert.ok(sabakan.requests.length >= 1, "sabakan was asked to count the fleet at start");
  });

  it("answers CKE's own searchMachines with all 10,000 machines", async () => {
    const answer = await ask(CKE_SEARCH_MACHINES);
    assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
    assert.equal((answer.data?.["searchMachines"] as unknown[]).length, FLEET);
    await healthy();
  });

  const ORDINARY: Array<{ name: string; query: string; variables?: Record<string, unknown> }> = [
    ...Object.entries(READS).map(([name, query]) => ({
      name: `the status page's ${name} read`,
      query,
      ...(name === "finished" && { variables: { since: new Date(Date.now() - 86_400_000).toISOString(), limit: 2_000 } }),
    })),
    {
      name: "GraphiQL's introspection",
      query: getIntrospectionQuery({
        descriptions: true,
        inputValueDeprecation: true,
        schemaDescription: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
      }),
    },
    { name: "one searchMachines with every field", query: `{ searchMachines { ${EVERY_MACHINE_FIELD} } }` },
  ];
  for (const { name, query, variables } of ORDINARY) {
    it(`answers ${name} over the fleet`, async () => {
      const answer = await ask(query, variables);
      assert.deepEqual([answer.status, answer.errors], [200, undefined], JSON.stringify(answer.errors));
    });
  }

  for (const { name, query, estimate } of ABUSE_SHAPES) {
    it(`refuses ${name} before running it, with its estimate over 10,000 machines and the limit, while /health answers`, async () => {
      const requests = asked().length;
      const [answer] = await Promise.all([ask(query), healthy()]);
      assert.equal(answer.status, 400);
      assert.equal(
        answer.errors?.[0]?.message,
        `the operation's estimated cost is ${estimate}, more than the limit of ${DEFAULT_LIMITS.maxCost} (limits.max_cost)`,
      );
      assert.equal(answer.errors?.[0]?.extensions?.["limit"], "limits.max_cost");
      assert.equal(asked().length, requests, "sabakan was not asked");
      await healthy();
    });
  }

  it("refuses the join aliased many times in a subscription, over WebSocket, with its estimate", async () => {
    const connection = wsConnection(url, { authorization: `Bearer ${VIEWER}` });
    try {
      const joins = Array.from({ length: 5 }, (_, i) => `a${i}: machine { ${EVERY_MACHINE_FIELD} }`).join(" ");
      const outcome = await connection.run(`subscription { repairEntryEvents { entry { ${joins} } } }`);
      const errors = outcome.error as ReadonlyArray<{ message: string }>;
      assert.equal(
        errors[0]?.message,
        `the operation's estimated cost is ${2 + 5 * 113 + 5 * FLEET * 113}, more than the limit of ${DEFAULT_LIMITS.maxCost} (limits.max_cost)`,
      );
    } finally {
      await connection.dispose();
    }
    await healthy();
  });

  it("replaces an answer over limits.max_response_bytes with an error naming the limit (two searches of every field, within max_cost)", async () => {
    const answer = await ask(`{ a: searchMachines { ${EVERY_MACHINE_FIELD} } b: searchMachines { ${EVERY_MACHINE_FIELD} } }`);
    assert.equal(answer.data, undefined);
    assert.equal(
      answer.errors?.[0]?.message,
      `the answer is larger than ${MAX_RESPONSE_BYTES} bytes (limits.max_response_bytes); ask for fewer items or fields`,
    );
    assert.deepEqual(answer.errors?.[0]?.extensions, { type: "LIMIT_EXCEEDED", code: "BAD_REQUEST", limit: "limits.max_response_bytes" });
    assert.ok(answer.bytes < 1_000, `${answer.bytes} bytes sent`);
    await healthy();
  });
});
