import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import type { Page } from "playwright-core";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { CHROMIUM, STEP_TIMEOUT_MS, withChromium } from "../support/graphiql-browser.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { addRacks, gotoStatusPage, openStatusPage, queueShows, watchPage } from "../support/status-page.js";
import { tempDir } from "../support/temp-dir.js";

/** The page retries its socket with a back-off of up to 10 s: a generous bound for a broken page, never a speed test. */
const RECONNECT_DEADLINE_MS = 60_000;

/** Where the screenshot of the disconnected page is kept (git-ignored), next to the status page test's. */
const ARTIFACTS = join(process.cwd(), "test-artifacts");

const ADD_ENTRY = (address: string) => `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "${address}") { index } }`;

async function addEntry(k: TestKintsugi, address: string): Promise<string> {
  const added = await k.gql(ADD_ENTRY(address));
  assert.equal(added.errors, undefined, JSON.stringify(added.errors));
  return added.data?.["addRepairEntry"].index;
}

/** What Chromium itself logs while the server is down: its refused socket and request attempts to this origin. */
function isRefusedConnection(error: string, origin: string): boolean {
  const host = new URL(origin).host;
  return error.includes(host) && /ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(error);
}

/** A kintsugi over a 12-machine sabakan and a Chromium page, for `body`; everything closed after it. */
async function withStatusPage(t: TestContext, body: (page: Page, k: TestKintsugi, origin: string) => Promise<void>): Promise<void> {
  const sabakan = await startFakeSabakan();
  addRacks(sabakan, 12, 3);
  const k = await startTestKintsugi(
    { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 } },
    { startSchedule: false },
  );
  await withChromium(t, ({ page }) => body(page, k, new URL(k.url).origin), { cleanup: async () => (await k.dispose(), await sabakan.close()) });
}

describe("the status page's first snapshot", { skip: existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM}` }, () => {
  it(
    "is read only once kintsugi says its subscriptions listen: a change made while they are still on their way shows without a reload",
    { timeout: 300_000 },
    async (t) => {
      await withStatusPage(t, async (page, k, origin) => {
        // The page's operations are held on their way to kintsugi (its connection_init is not): the window between
        // the page's first look and its subscriptions taking effect, stretched until the test lets them go.
        const held: string[] = [];
        let release: (() => void) | null = null;
        // Once the page sent its six subscriptions and did what comes next: read the queue, or ask first.
        let next: string | null = null;
        let beforeListening: (what: string) => void = () => undefined;
        const sentBeforeListening = new Promise<string>((resolve) => (beforeListening = resolve));
        const check = () => {
          if (next !== null && held.filter((m) => m.includes('"subscription ')).length >= 6) beforeListening(next);
        };
        page.on("response", (response) => {
          if (!response.request().postData()?.includes("StatusQueue")) return;
          next ??= "read the queue over HTTP";
          check();
        });
        await page.routeWebSocket(/\/graphql$/, (ws) => {
          const server = ws.connectToServer();
          release = () => {
            for (const message of held.splice(0)) server.send(message);
            ws.onMessage((message) => server.send(message));
          };
          ws.onMessage((message) => {
            const text = String(message);
            if (!text.includes('"subscribe"')) return server.send(message);
            held.push(text);
            if (text.includes("query Listening")) next ??= "asked whether its subscriptions listen";
            check();
          });
        });
        await gotoStatusPage(page, origin);
        // What the page does before its subscriptions listen, whichever it is.
        t.diagnostic(`the page ${await sentBeforeListening} while its ${held.length} operations were held`);
        const added = await addEntry(k, "10.0.0.1");
        assert.ok(release !== null, "the page's socket was routed");
        (release as () => void)();
        await queueShows(page, added, true, STEP_TIMEOUT_MS);
        await page
          .locator("#connection")
          .filter({ hasText: /^live$/ })
          .waitFor({ timeout: STEP_TIMEOUT_MS });
      });
    },
  );

  it("applies the events that come while it reads the last of its snapshot (what kintsugi knows of sabakan)", { timeout: 300_000 }, async (t) => {
    await withStatusPage(t, async (page, k, origin) => {
      // The page's read of `dependencies`, its last after the panels, is held until the test lets it go.
      let held: () => void = () => undefined;
      const reading = new Promise<void>((resolve) => (held = resolve));
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      await page.route(/\/graphql$/, async (route) => {
        if (route.request().postData()?.includes("StatusDependencies")) {
          held();
          await released;
        }
        await route.continue();
      });
      const address = "10.0.3.1";
      let delivered: () => void = () => undefined;
      const eventCame = new Promise<void>((resolve) => (delivered = resolve));
      page.on("websocket", (ws) => ws.on("framereceived", (frame) => (String(frame.payload).includes(address) ? delivered() : undefined)));
      await gotoStatusPage(page, origin);
      await reading;
      const added = await addEntry(k, address);
      await eventCame;
      release();
      await queueShows(page, added, true, STEP_TIMEOUT_MS);
    });
  });
});

describe("the status page across a restart of kintsugi", { skip: existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM}` }, () => {
  it(
    "says it is disconnected and stale while kintsugi is down, then reconnects to a new server on the same file and port and shows what changed without a reload",
    { timeout: 300_000 },
    async (t) => {
      const dir = tempDir();
      const databasePath = join(dir.path, "kintsugi.db");
      const sabakan = await startFakeSabakan();
      addRacks(sabakan, 12, 3);
      const config = { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 } };
      let k: TestKintsugi | null = await startTestKintsugi(config, { databasePath, startSchedule: false });
      const origin = new URL(k.url).origin;
      const port = Number(new URL(k.url).port);
      let watch: ReturnType<typeof watchPage> | null = null;
      await withChromium(
        t,
        async ({ context, page }) => {
          watch = watchPage(context, page);
          await openStatusPage(page, origin, 12, STEP_TIMEOUT_MS);
          const before = await addEntry(k!, "10.0.0.1");
          await queueShows(page, before, true, STEP_TIMEOUT_MS);
          // Marks this document: a reload would lose it.
          await page.evaluate(() => ((globalThis as unknown as { kintsugiTestMark: boolean }).kintsugiTestMark = true));

          await k!.dispose();
          k = null;
          const banner = page.locator("#connection");
          await banner
            .filter({ hasText: /^disconnected since \d\d:\d\d:\d\d, what is shown may be stale; reconnecting \(.+\)…$/ })
            .waitFor({ timeout: RECONNECT_DEADLINE_MS });
          assert.equal(await banner.getAttribute("data-state"), "connecting");
          assert.equal(await page.locator("body").getAttribute("data-stale"), "true", "the page is marked stale");
          mkdirSync(ARTIFACTS, { recursive: true });
          await page.screenshot({ path: join(ARTIFACTS, "status-disconnected.png"), fullPage: true });

          k = await startTestKintsugi({ ...config, listen: { host: "127.0.0.1", port } }, { databasePath, startSchedule: false });
          assert.equal(new URL(k.url).origin, origin, "the new server took the same port");
          // Added while the page may still be disconnected: the snapshot read at reconnection (or its event) shows it.
          const during = await addEntry(k, "10.0.0.2");
          await queueShows(page, during, true, RECONNECT_DEADLINE_MS);
          await page
            .locator("#connection-note")
            .filter({ hasText: /^\(was disconnected \d\d:\d\d:\d\d–\d\d:\d\d:\d\d\)$/ })
            .waitFor({ timeout: RECONNECT_DEADLINE_MS });
          assert.equal(await banner.textContent(), "live");
          assert.equal(await page.locator("body").getAttribute("data-stale"), null, "no longer stale");
          await queueShows(page, before, true, STEP_TIMEOUT_MS);
          // And the subscriptions deliver again: a change after the reconnection shows as it happens.
          const server = k;
          await queueShows(page, await addEntry(server, "10.0.2.1"), true, STEP_TIMEOUT_MS);
          assert.equal(
            await page.evaluate(() => (globalThis as unknown as { kintsugiTestMark?: boolean }).kintsugiTestMark),
            true,
            "the page was not reloaded",
          );

          assert.deepEqual(
            watch.requests.filter((url) => new URL(url).origin !== origin),
            [],
            `requests to anywhere but ${origin}`,
          );
          assert.deepEqual(
            watch.errors.filter((e) => !isRefusedConnection(e, origin)),
            [],
            "errors in the page other than the refused connections while kintsugi was down",
          );
        },
        {
          cleanup: async () => {
            await k?.dispose();
            await sabakan.close();
            dir.remove();
          },
          diagnostics: () => JSON.stringify(watch),
        },
      );
    },
  );
});
