// bench/status: the status page's first render with 10,000 machines in 350 racks (the laptop-screen case):
// from navigating to /status until the rack grid shows every machine and the page is live. Includes kintsugi
// reading the machines from the test sabakan through its gateway, the JSON over HTTP and the canvas drawing.
// Headless Debian chromium (as the browser tests use), a fresh page per run after one warm-up.
// Prints figures; asserts nothing. Run: npm run bench:status (after npm run build, which bundles the page).
import { existsSync } from "node:fs";
import { startFakeSabakan } from "../test/support/fake-sabakan.js";
import { CHROMIUM, launchChromium, STEP_TIMEOUT_MS } from "../test/support/graphiql-browser.js";
import { startTestKintsugi } from "../test/support/kintsugi-server.js";
import { addRacks, openStatusPage, watchPage } from "../test/support/status-page.js";

const MACHINES = 10_000;
const RACKS = 350;
const RUNS = 5;

if (!existsSync(CHROMIUM)) {
  console.log(`bench/status: skipped, chromium not found at ${CHROMIUM}`);
  process.exit(0);
}

const sabakan = await startFakeSabakan();
addRacks(sabakan, MACHINES, RACKS);
const k = await startTestKintsugi({ sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 30, maxResponseBytes: 1 << 26 } }, { startSchedule: false });
const origin = new URL(k.url).origin;
const browser = await launchChromium();
try {
  await browser.page.setViewportSize({ width: 1440, height: 900 });
  await openStatusPage(browser.page, origin, MACHINES, STEP_TIMEOUT_MS);
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    const watch = watchPage(browser.context, page);
    const started = performance.now();
    await openStatusPage(page, origin, MACHINES, STEP_TIMEOUT_MS);
    times.push(performance.now() - started);
    if (watch.errors.length > 0) console.log(`run ${run + 1}: errors in the page: ${watch.errors.join("; ")}`);
    await page.close();
  }
  const sorted = [...times].sort((a, b) => a - b);
  const ms = (v: number | undefined) => `${Math.round(v ?? NaN)} ms`;
  console.log(`status page first render, ${MACHINES} machines in ${RACKS} racks, ${RUNS} runs:`);
  console.log(`  min ${ms(sorted[0])}  median ${ms(sorted[Math.floor(RUNS / 2)])}  max ${ms(sorted[RUNS - 1])}`);
} finally {
  await browser.close();
  await k.dispose();
  await sabakan.close();
}
