import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { tempDir } from "../support/temp-dir.js";

/** Debian's chromium (`.ci/run` installs it); Playwright's own browser downloads are never used. */
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
/** Generous: the CI machine has 2 cores and is shared; nothing here measures time. */
const STEP_TIMEOUT_MS = 60_000;

const SUBSCRIPTION = "subscription { repairEntryEvents { kind entry { index address } } }";
const addEntry = (address: string) =>
  `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "${address}") { index } }`;

/** Opens GraphiQL with an operation in its editor (the page's `?query=`) and runs it with the execute button. */
async function runInGraphiQL(page: Page, origin: string, query: string): Promise<void> {
  await page.goto(`${origin}/?query=${encodeURIComponent(query)}`);
  // The editor shows the operation once Monaco has loaded (lazily, with its workers).
  await page.locator(".graphiql-query-editor").getByText(query.slice(0, 20)).waitFor();
  await page.getByRole("button", { name: /^Execute query/ }).click();
}

/** Resolves when the result pane shows every string (whitespace-normalized; Monaco renders spaces as U+00A0). */
async function resultPaneShows(page: Page, strings: readonly string[], timeout = STEP_TIMEOUT_MS): Promise<void> {
  await page.waitForFunction(
    (wanted) => {
      // Runs in the page (the project's TypeScript has no DOM types).
      const { document } = globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } };
      const text = (document.querySelector(".graphiql-response")?.textContent ?? "").replace(/\s+/g, " ");
      return wanted.every((s) => text.includes(s));
    },
    strings,
    { timeout, polling: 100 },
  );
}

/** The promise, or a rejection with the message when it takes longer than the timeout. */
async function within<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), timeoutMs)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function resultPaneText(page: Page): Promise<string> {
  return ((await page.locator(".graphiql-response").textContent()) ?? "").replace(/\s+/g, " ");
}

describe("GraphiQL at /", { skip: existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM}` }, () => {
  it("loads with no request leaving 127.0.0.1, runs a query and shows a subscription's event", { timeout: 300_000 }, async (t) => {
    const k: TestKintsugi = await startTestKintsugi({ auth: null });
    const profile = tempDir("kintsugi-chromium-");
    let context: BrowserContext | null = null;
    let page: Page | null = null;
    const requests: string[] = [];
    const sockets: string[] = [];
    const failures: string[] = [];
    const pageErrors: string[] = [];
    try {
      const origin = new URL(k.url).origin;
      const front = await fetch(`${origin}/`);
      assert.equal(front.status, 200, `GET / answered ${front.status}: ${await front.text()}`);

      context = await chromium.launchPersistentContext(profile.path, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      context.setDefaultTimeout(STEP_TIMEOUT_MS);
      context.on("request", (request) => void requests.push(request.url()));
      context.on("requestfailed", (request) => {
        // net::ERR_ABORTED: a worker still loading when the test navigates to the next operation.
        const reason = request.failure()?.errorText ?? "";
        if (reason !== "net::ERR_ABORTED") failures.push(`${request.url()}: ${reason}`);
      });
      context.on("response", (response) => {
        if (response.status() >= 400) failures.push(`${response.url()}: HTTP ${response.status()}`);
      });
      page = context.pages()[0] ?? (await context.newPage());
      let subscribeSent: () => void = () => {};
      const subscribed = new Promise<void>((resolve) => (subscribeSent = resolve));
      page.on("websocket", (ws) => {
        sockets.push(ws.url());
        ws.on("framesent", (frame) => {
          if (typeof frame.payload === "string" && frame.payload.includes('"type":"subscribe"')) subscribeSent();
        });
      });
      page.on("pageerror", (err) => void pageErrors.push(err.message));

      await runInGraphiQL(page, origin, "{ repairQueueEnabled }");
      await resultPaneShows(page, ['"repairQueueEnabled": true']);

      await runInGraphiQL(page, origin, SUBSCRIPTION);
      await within(subscribed, STEP_TIMEOUT_MS, "GraphiQL sent no graphql-ws subscribe message");
      // The subscription is live once an event reaches the pane. No hook says when the server has registered it,
      // so probe with throwaway entries (each its own address) until one shows, rather than sleeping.
      let live = false;
      let probes = 0;
      for (let probe = 1; probe <= 10 && !live; probe++) {
        probes = probe;
        const address = `10.0.1.${probe}`;
        const added = await k.gql(addEntry(address));
        assert.equal(added.errors, undefined, JSON.stringify(added.errors));
        live = await resultPaneShows(page, [`"${address}"`], 10_000).then(
          () => true,
          () => false,
        );
      }
      assert.ok(live, `no subscription event reached the result pane; it shows: ${await resultPaneText(page)}`);
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
    } catch (err) {
      if (page) {
        const shot = join(tmpdir(), `kintsugi-graphiql-failure-${process.pid}-${Date.now()}.png`);
        await page.screenshot({ path: shot, fullPage: true }).then(
          () => t.diagnostic(`screenshot: ${shot}`),
          (shotErr: unknown) => t.diagnostic(`no screenshot: ${(shotErr as Error).message}`),
        );
      }
      t.diagnostic(`requests: ${JSON.stringify(requests)}; websockets: ${JSON.stringify(sockets)}; page errors: ${JSON.stringify(pageErrors)}`);
      throw err;
    } finally {
      try {
        await context?.close();
      } finally {
        profile.remove();
        await k.dispose();
      }
    }
  });
});
