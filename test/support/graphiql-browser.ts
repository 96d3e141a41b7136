import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, type TestContext } from "node:test";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

/** Debian's chromium (`.ci/run` installs it); Playwright's own browser downloads are never used. */
export const CHROMIUM = "/usr/bin/chromium";
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
export const STEP_TIMEOUT_MS = 60_000;

/** A context of a headless Chromium, as fresh as a new profile (its own localStorage, cookies and cache), and its page. */
export interface TestBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Closes the context (the browser stays for the file's next test). */
  close(): Promise<void>;
}

// One Chromium for a test file's tests, each in a context of its own: a launch cost about 0.4 s of CPU more than a
// context, some 25 launches in the suite. Closed when the file's tests end (a hook of the file's root).
let shared: Promise<Browser> | null = null;
after(async () => {
  const browser = await shared?.catch(() => null);
  shared = null;
  await browser?.close();
});

/** A fresh context with its page, in the file's Chromium (launched at the first, again if it went away). */
export async function launchChromium(): Promise<TestBrowser> {
  let browser = await shared?.catch(() => null);
  if (!browser?.isConnected()) {
    shared = chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    browser = await shared;
  }
  const context = await browser.newContext();
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const page = await context.newPage();
  return { context, page, close: () => context.close() };
}

/** Opens GraphiQL with an operation in its editor (the page's `?query=`). */
export async function openInGraphiQL(page: Page, origin: string, query: string): Promise<void> {
  await page.goto(`${origin}/?query=${encodeURIComponent(query)}`);
  // The editor shows the operation once Monaco has loaded (lazily, with its workers).
  await page.locator(".graphiql-query-editor").getByText(query.slice(0, 20)).waitFor();
}

/** Runs the operation in the editor with the execute button. */
export async function execute(page: Page): Promise<void> {
  await page.getByRole("button", { name: /^Execute query/ }).click();
}

/** Opens GraphiQL with an operation in its editor and runs it. */
export async function runInGraphiQL(page: Page, origin: string, query: string): Promise<void> {
  await openInGraphiQL(page, origin, query);
  await execute(page);
}

/** Resolves when the result pane shows every string (whitespace-normalized; Monaco renders spaces as U+00A0). */
export async function resultPaneShows(page: Page, strings: readonly string[], timeout = STEP_TIMEOUT_MS): Promise<void> {
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

export async function resultPaneText(page: Page): Promise<string> {
  return ((await page.locator(".graphiql-response").textContent()) ?? "").replace(/\s+/g, " ");
}

/** The promise, or a rejection with the message when it takes longer than the timeout. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), timeoutMs)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves when the page sends a graphql-ws `subscribe` message on any of its WebSockets. */
export function subscribeSent(page: Page): Promise<void> {
  return new Promise<void>((resolve) => {
    page.on("websocket", (ws) => {
      ws.on("framesent", (frame) => {
        if (typeof frame.payload === "string" && frame.payload.includes('"type":"subscribe"')) resolve();
      });
    });
  });
}

/**
 * Runs `body` with a fresh Chromium: when it fails, a screenshot of the page and `diagnostics()` go into the test's
 * diagnostics; either way the browser is closed, then `cleanup` runs (the servers the test started).
 */
export async function withChromium(
  t: TestContext,
  body: (browser: TestBrowser) => Promise<void>,
  options: { readonly cleanup: () => Promise<unknown>; readonly diagnostics?: () => string },
): Promise<void> {
  let browser: TestBrowser | null = null;
  try {
    browser = await launchChromium();
    await body(browser);
  } catch (err) {
    if (browser) await screenshotOnFailure(t, browser.page);
    if (options.diagnostics) t.diagnostic(options.diagnostics());
    throw err;
  } finally {
    try {
      await browser?.close();
    } finally {
      await options.cleanup();
    }
  }
}

/** Saves a screenshot of a failing page to the temp directory and names it in the test's diagnostics. */
export async function screenshotOnFailure(t: TestContext, page: Page): Promise<void> {
  const shot = join(tmpdir(), `kintsugi-graphiql-failure-${process.pid}-${Date.now()}.png`);
  await page.screenshot({ path: shot, fullPage: true }).then(
    () => t.diagnostic(`screenshot: ${shot}`),
    (shotErr: unknown) => t.diagnostic(`no screenshot: ${(shotErr as Error).message}`),
  );
}

/**
 * Waits until a subscription running in GraphiQL shows events: no hook says when the server has registered it, so
 * this adds throwaway entries (each its own address, 10.0.1.N) until one reaches the result pane, rather than
 * sleeping. Returns how many probes it took; throws with the pane's text when none arrived.
 */
export async function untilSubscriptionLive(page: Page, addEntry: (address: string) => Promise<void>): Promise<number> {
  for (let probe = 1; probe <= 10; probe++) {
    const address = `10.0.1.${probe}`;
    await addEntry(address);
    const live = await resultPaneShows(page, [`"${address}"`], 10_000).then(
      () => true,
      () => false,
    );
    if (live) return probe;
  }
  throw new Error(`no subscription event reached the result pane; it shows: ${await resultPaneText(page)}`);
}
