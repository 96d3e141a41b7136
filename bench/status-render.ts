// The status page's first render with 10,000 machines in 350 racks (the laptop-screen case), shared by
// bench/status and bench/stats: from navigating to /status until the rack grid shows every machine and the page is
// live. Includes kintsugi reading the machines from the test sabakan through its gateway, the JSON over HTTP and the
// canvas drawing. Headless Debian chromium (as the browser tests use), a fresh page per run after one warm-up. Needs
// dist/status (npm run build bundles the page).
import { existsSync } from "node:fs";
import { startFakeSabakan } from "../test/support/fake-sabakan.js";
import { CHROMIUM, launchChromium, STEP_TIMEOUT_MS } from "../test/support/graphiql-browser.js";
import { startTestKintsugi } from "../test/support/kintsugi-server.js";
import { addRacks, openStatusPage, watchPage } from "../test/support/status-page.js";

export const STATUS_MACHINES = 10_000;
export const STATUS_RACKS = 350;

/** The first render's times (ms, one per run, sorted), or why it could not be measured. */
export async function measureStatusFirstRender(runs: number, log: (line: string) => void): Promise<number[] | string> {
  if (!existsSync(CHROMIUM)) return `chromium not found at ${CHROMIUM}`;
  const sabakan = await startFakeSabakan();
  addRacks(sabakan, STATUS_MACHINES, STATUS_RACKS);
  const k = await startTestKintsugi(
    { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 30, maxResponseBytes: 1 << 26 } },
    { startSchedule: false },
  );
  const origin = new URL(k.url).origin;
  const browser = await launchChromium();
  try {
    await browser.page.setViewportSize({ width: 1440, height: 900 });
    await openStatusPage(browser.page, origin, STATUS_MACHINES, STEP_TIMEOUT_MS);
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 1440, height: 900 });
      const watch = watchPage(browser.context, page);
      const started = performance.now();
      await openStatusPage(page, origin, STATUS_MACHINES, STEP_TIMEOUT_MS);
      times.push(performance.now() - started);
      if (watch.errors.length > 0) log(`run ${run + 1}: errors in the page: ${watch.errors.join("; ")}`);
      await page.close();
    }
    return times.sort((a, b) => a - b);
  } finally {
    await browser.close();
    await k.dispose();
    await sabakan.close();
  }
}

/** The line both benchmarks print: min, median and max of `times`, or why they are missing. */
export function statusRenderLine(times: number[] | string): string {
  const what = `status page first render, ${STATUS_MACHINES.toLocaleString("en")} machines in ${STATUS_RACKS} racks`;
  if (typeof times === "string") return `${what}: skipped, ${times}`;
  const ms = (v: number | undefined) => `${Math.round(v ?? NaN)} ms`;
  return `${what}, ${times.length} runs: min ${ms(times[0])}, median ${ms(times[Math.floor(times.length / 2)])}, max ${ms(times.at(-1))}`;
}
