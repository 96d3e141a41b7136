import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { sha256Hex } from "../../src/auth/tokens.js";
import {
  CHROMIUM,
  execute,
  openInGraphiQL,
  resultPaneShows,
  runInGraphiQL,
  STEP_TIMEOUT_MS,
  subscribeSent,
  untilSubscriptionLive,
  withChromium,
  within,
} from "../support/graphiql-browser.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";

const TOKEN = "kintsugi_graphiql-browser-test-operator";
const SUBSCRIPTION = "subscription { repairEntryEvents { kind entry { index address } } }";
const addEntry = (address: string) => `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "${address}") { index } }`;

/** POSTs a document to kintsugi's /graphql with the test's token, as the CLI would. */
async function gqlWithToken(k: TestKintsugi, query: string): Promise<{ data?: Record<string, unknown>; errors?: unknown }> {
  const res = await fetch(`${k.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ query }),
  });
  assert.equal(res.status, 200, `kintsugi answered ${res.status}`);
  return (await res.json()) as { data?: Record<string, unknown>; errors?: unknown };
}

async function storedToken(page: Page): Promise<string | null> {
  return page.evaluate(() => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem("kintsugi.token"));
}

/** Every /graphql request seen carried this Authorization value ("(none)": no header), and there was one. */
function assertAllSent(authorizations: readonly string[], value: string): void {
  assert.ok(authorizations.length > 0, "no /graphql request seen");
  assert.deepEqual(
    authorizations.filter((a) => a !== value),
    [],
    `requests with another Authorization than ${value}`,
  );
}

describe("GraphiQL with a token", { skip: existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM}` }, () => {
  it("takes a pasted token once, sends it over HTTP and graphql-ws, and forgets it on request", { timeout: 300_000 }, async (t) => {
    const k = await startTestKintsugi({
      auth: { anonymous: "none", tokens: [{ name: "graphiql-operator", role: "operator", sha256: sha256Hex(TOKEN) }], allowedOrigins: [], allowedHosts: [] },
    });
    const graphqlAuthorizations: string[] = [];
    const connectionInits: string[] = [];
    const pageErrors: string[] = [];
    await withChromium(
      t,
      async ({ context, page }) => {
        const origin = new URL(k.url).origin;
        context.on("request", (request) => {
          if (new URL(request.url()).pathname === "/graphql") graphqlAuthorizations.push(request.headers()["authorization"] ?? "(none)");
        });
        page.on("websocket", (ws) =>
          ws.on("framesent", (frame) => {
            if (typeof frame.payload === "string" && frame.payload.includes('"type":"connection_init"')) connectionInits.push(frame.payload);
          }),
        );
        page.on("pageerror", (err) => void pageErrors.push(err.message));
        const subscribed = subscribeSent(page);

        // Without a token this kintsugi refuses, and GraphiQL shows why.
        await runInGraphiQL(page, origin, "{ repairQueueEnabled }");
        await resultPaneShows(page, ['"UNAUTHENTICATED"']);
        assertAllSent(graphqlAuthorizations, "(none)");

        await page.getByLabel("API token").fill(TOKEN);
        await page.getByRole("button", { name: "Use token" }).click();
        await page.getByRole("status").filter({ hasText: "Token in use" }).waitFor();
        assert.equal(await storedToken(page), TOKEN, "the token is kept in localStorage under kintsugi.token");
        graphqlAuthorizations.length = 0;
        await execute(page);
        await resultPaneShows(page, ['"repairQueueEnabled": true']);
        assertAllSent(graphqlAuthorizations, `Bearer ${TOKEN}`);

        // A new page load reads the stored token: pasted once, a mutation works too.
        await runInGraphiQL(page, origin, "mutation { setRepairQueueEnabled(enabled: false) }");
        await resultPaneShows(page, ['"setRepairQueueEnabled": false']);
        assert.deepEqual((await gqlWithToken(k, "{ repairQueueEnabled }")).data, { repairQueueEnabled: false });

        await runInGraphiQL(page, origin, SUBSCRIPTION);
        await within(subscribed, STEP_TIMEOUT_MS, "GraphiQL sent no graphql-ws subscribe message");
        await untilSubscriptionLive(page, async (address) => {
          const added = await gqlWithToken(k, addEntry(address));
          assert.equal(added.errors, undefined, JSON.stringify(added.errors));
        });
        assert.ok(connectionInits.length > 0, "no graphql-ws connection_init sent");
        for (const init of connectionInits) {
          assert.deepEqual(JSON.parse(init), { type: "connection_init", payload: { authorization: `Bearer ${TOKEN}` } });
        }

        // Forgetting it: gone from storage, and requests go out anonymous (refused) again.
        await openInGraphiQL(page, origin, "{ repairQueueEnabled }");
        await page.getByRole("button", { name: "Forget token" }).click();
        await page.getByLabel("API token").waitFor();
        assert.equal(await storedToken(page), null);
        await execute(page);
        await resultPaneShows(page, ['"UNAUTHENTICATED"']);
        assert.equal(graphqlAuthorizations.at(-1), "(none)");
        assert.deepEqual(pageErrors, [], "uncaught errors in the page");
      },
      {
        cleanup: () => k.dispose(),
        diagnostics: () => `authorizations: ${JSON.stringify(graphqlAuthorizations)}; page errors: ${JSON.stringify(pageErrors)}`,
      },
    );
  });
});
