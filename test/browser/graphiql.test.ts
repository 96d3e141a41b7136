import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import {
  CHROMIUM,
  execute,
  resultPaneShows,
  runInGraphiQL,
  STEP_TIMEOUT_MS,
  subscribeSent,
  untilSubscriptionLive,
  withChromium,
  within,
} from "../support/graphiql-browser.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";

const SUBSCRIPTION = "subscription { repairEntryEvents { kind entry { index address } } }";
const addEntry = (address: string) => `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "${address}") { index } }`;

describe("GraphiQL at / and at /playground", { skip: existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM}` }, () => {
  it("loads with no request leaving 127.0.0.1, runs a query and shows a subscription's event", { timeout: 300_000 }, async (t) => {
    const k: TestKintsugi = await startTestKintsugi({ auth: null });
    const requests: string[] = [];
    const sockets: string[] = [];
    const failures: string[] = [];
    const pageErrors: string[] = [];
    const origin = new URL(k.url).origin;
    await withChromium(
      t,
      async ({ context, page }) => {
        const front = await fetch(`${origin}/`);
        assert.equal(front.status, 200, `GET / answered ${front.status}: ${await front.text()}`);

        context.on("request", (request) => void requests.push(request.url()));
        context.on("requestfailed", (request) => {
          // net::ERR_ABORTED: a worker still loading when the test navigates to the next operation.
          const reason = request.failure()?.errorText ?? "";
          if (reason !== "net::ERR_ABORTED") failures.push(`${request.url()}: ${reason}`);
        });
        context.on("response", (response) => {
          if (response.status() >= 400) failures.push(`${response.url()}: HTTP ${response.status()}`);
        });
        const subscribed = subscribeSent(page);
        page.on("websocket", (ws) => void sockets.push(ws.url()));
        page.on("pageerror", (err) => void pageErrors.push(err.message));

        await runInGraphiQL(page, origin, "{ repairQueueEnabled }");
        await resultPaneShows(page, ['"repairQueueEnabled": true']);

        await runInGraphiQL(page, origin, SUBSCRIPTION);
        await within(subscribed, STEP_TIMEOUT_MS, "GraphiQL sent no graphql-ws subscribe message");
        const probes = await untilSubscriptionLive(page, async (address) => {
          const added = await k.gql(addEntry(address));
          assert.equal(added.errors, undefined, JSON.stringify(added.errors));
        });
        t.diagnostic(`subscription live after ${probes} probe entr${probes === 1 ? "y" : "ies"}`);
        const added = await k.gql(addEntry("10.0.0.1"));
        assert.equal(added.errors, undefined, JSON.stringify(added.errors));
        await resultPaneShows(page, ['"CREATED"', '"10.0.0.1"']);

        assert.ok(requests.length > 0, "no request recorded");
        const elsewhere = requests.filter((url) => new URL(url).origin !== origin);
        assert.deepEqual(elsewhere, [], `requests to anywhere but ${origin}`);
        assert.ok(sockets.length > 0, "the subscription opened no WebSocket");
        assert.deepEqual(
          sockets.filter((url) => url !== `${origin.replace(/^http/, "ws")}/graphql`),
          [],
          "WebSockets to anything but this origin's /graphql",
        );
        assert.deepEqual(failures, [], "failed requests");
        assert.deepEqual(pageErrors, [], "uncaught errors in the page");
      },
      {
        cleanup: () => k.dispose(),
        diagnostics: () => `requests: ${JSON.stringify(requests)}; websockets: ${JSON.stringify(sockets)}; page errors: ${JSON.stringify(pageErrors)}`,
      },
    );
  });

  it("answers at sabakan's /playground too, opening with kintsugi's example query instead of the generic welcome", { timeout: 300_000 }, async (t) => {
    const k: TestKintsugi = await startTestKintsugi({ auth: null });
    const pageErrors: string[] = [];
    await withChromium(
      t,
      async ({ page }) => {
        const origin = new URL(k.url).origin;
        const added = await k.gql(addEntry("10.0.0.7"));
        assert.equal(added.errors, undefined, JSON.stringify(added.errors));
        page.on("pageerror", (err) => void pageErrors.push(err.message));
        await page.goto(`${origin}/playground`);
        const editor = page.locator(".graphiql-query-editor");
        // Monaco renders the lines in view: the example's first comment and its operation.
        await editor.getByText("KintsugiOverview").waitFor();
        const text = ((await editor.textContent()) ?? "").replace(/\s+/g, " ");
        assert.match(text, /# kintsugi at a glance/);
        assert.doesNotMatch(text, /Welcome to GraphiQL/);
        await execute(page);
        await resultPaneShows(page, ['"repairQueueEnabled": true', '"address": "10.0.0.7"', '"constraints"']);
        assert.deepEqual(pageErrors, [], "uncaught errors in the page");
      },
      { cleanup: () => k.dispose() },
    );
  });
});
