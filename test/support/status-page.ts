import type { BrowserContext, Page } from "playwright-core";
import type { FakeSabakan } from "./fake-sabakan.js";

/** What a status page did that a test checks: every request and WebSocket it opened, and what went wrong in it. */
export interface PageWatch {
  readonly requests: string[];
  readonly sockets: string[];
  readonly failures: string[];
  /** Uncaught exceptions and console errors. */
  readonly errors: string[];
}

/** Starts recording a page's requests, sockets, failed responses, uncaught exceptions and console errors. */
export function watchPage(context: BrowserContext, page: Page): PageWatch {
  const watch: PageWatch = { requests: [], sockets: [], failures: [], errors: [] };
  context.on("request", (request) => void watch.requests.push(request.url()));
  context.on("requestfailed", (request) => void watch.failures.push(`${request.url()}: ${request.failure()?.errorText ?? ""}`));
  context.on("response", (response) => {
    if (response.status() >= 400) watch.failures.push(`${response.url()}: HTTP ${response.status()}`);
  });
  page.on("websocket", (ws) => void watch.sockets.push(ws.url()));
  page.on("pageerror", (err) => void watch.errors.push(`uncaught: ${err.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") watch.errors.push(`console: ${message.text()}`);
  });
  return watch;
}

/**
 * Opens /status, failing at once with the server's words when it cannot serve the page (its files not built): the
 * test would otherwise wait out its timeout for a page that never comes.
 */
export async function gotoStatusPage(page: Page, origin: string): Promise<void> {
  const response = await page.goto(`${origin}/status`);
  if (response !== null && !response.ok()) throw new Error(`GET /status answered ${response.status()}: ${await response.text()}`);
}

/** Opens /status and resolves once its rack grid shows `machines` machines and its connection banner says live. */
export async function openStatusPage(page: Page, origin: string, machines: number, timeout: number): Promise<void> {
  await gotoStatusPage(page, origin);
  await page.waitForFunction(
    (count) => {
      const { document } = globalThis as unknown as {
        document: { getElementById(id: string): { dataset: Record<string, string | undefined>; textContent: string | null } | null };
      };
      return document.getElementById("racks")?.dataset["machines"] === String(count) && document.getElementById("connection")?.textContent === "live";
    },
    machines,
    { timeout, polling: 20 },
  );
}

/** Resolves when the queue shows (or, with `shown` false, no longer shows) the entry with this index. */
export async function queueShows(page: Page, index: string, shown: boolean, timeout: number): Promise<void> {
  await page.waitForFunction(
    ({ index, shown }) => {
      const { document } = globalThis as unknown as { document: { querySelector(s: string): unknown } };
      return (document.querySelector(`#queue tr[data-key="${index}"]`) !== null) === shown;
    },
    { index, shown },
    { timeout, polling: 10 },
  );
}

/**
 * Registers `count` machines in `racks` racks (serials s00000..., filled rack by rack, as evenly as they go), each HEALTHY with a unique
 * address 10.x.y.z, as large data centers are: the world of the 10,000-machine test and bench.
 */
export function addRacks(sabakan: FakeSabakan, count: number, racks: number): void {
  const filled = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const rack = Math.floor((i * racks) / count);
    filled.set(rack, (filled.get(rack) ?? 0) + 1);
    const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    sabakan.addMachine({
      serial: `s${String(i).padStart(5, "0")}`,
      rack,
      indexInRack: filled.get(rack)!,
      ipv4: [address],
      bmcIPv4: `11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    });
  }
}

/**
 * Resolves with the outage banner's line for `dependency` once it names the time `since` (ISO, as kintsugi's API
 * sends it) in its <time> element's datetime, which the tooltip shows too.
 */
export async function outageShows(page: Page, dependency: string, since: string, timeout: number): Promise<string> {
  const line = page.locator(`#outage p[data-dependency="${dependency}"]`);
  await line.locator(`time[datetime="${since}"][title="${since}"]`).waitFor({ timeout });
  return (await line.textContent()) ?? "";
}

/** Sets the viewport and resolves once the page has drawn itself again at that size. */
export async function rendersAt(page: Page, size: { readonly width: number; readonly height: number }): Promise<void> {
  const current = page.viewportSize();
  if (current?.width === size.width && current.height === size.height) return;
  const before = await page.locator("body").getAttribute("data-rendered");
  await page.setViewportSize(size);
  await page.waitForFunction(
    (count) => (globalThis as unknown as { document: { body: { dataset: Record<string, string | undefined> } } }).document.body.dataset["rendered"] !== count,
    before,
    { polling: 20 },
  );
}
