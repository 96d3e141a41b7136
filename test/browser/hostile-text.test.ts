import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { CHROMIUM, STEP_TIMEOUT_MS, withChromium } from "../support/graphiql-browser.js";
import { startTestKintsugi } from "../support/kintsugi-server.js";
import { openStatusPage } from "../support/status-page.js";

// A right-to-left override (U+202E) would show the rest of the line reversed; a C1 control (U+0085, next line) and
// a first-strong isolate (U+2068) are as invisible. Each must show as an escape a person can read.
const SERIAL = "r0m1\u202Eevil\u0085\u2068";
const SERIAL_SHOWN = "r0m1\\u202eevil\\x85\\u2068";
const REASON = "swap \u202Edisk\u202C";
const REASON_SHOWN = "swap \\u202edisk\\u202c";

describe(
  "the status page shows hostile text from sabakan and the API escaped",
  { skip: existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM}` },
  () => {
    it("escapes bidirectional and C1 controls in the rack tooltip and in the tables", { timeout: 180_000 }, async (t) => {
      const sabakan = await startFakeSabakan();
      sabakan.addMachine({ serial: SERIAL, rack: 0, ipv4: ["10.0.0.1"] });
      const k = await startTestKintsugi(
        { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 } },
        { startSchedule: false },
      );
      await withChromium(
        t,
        async ({ page }) => {
          const held = await k.gql(`mutation($reason: String!) { holdMachine(address: "10.0.0.1", reason: $reason) { address } }`, { reason: REASON });
          assert.equal(held.errors, undefined, JSON.stringify(held.errors));
          await openStatusPage(page, new URL(k.url).origin, 1, STEP_TIMEOUT_MS);
          // One rack of one machine: 28 px cells under a 26 px rack header.
          await page.locator("#racks").hover({ position: { x: 6, y: 32 } });
          const tooltip = page.locator("#racks-tooltip");
          await tooltip.filter({ hasText: "rack 0" }).waitFor();
          assert.equal(await tooltip.textContent(), `${SERIAL_SHOWN} (rack 0, 10.0.0.1): HEALTHY, held`);
          await page.locator("#holds").filter({ hasText: "swap" }).waitFor();
          assert.match((await page.locator("#holds").textContent()) ?? "", new RegExp(`10\\.0\\.0\\.1${REASON_SHOWN.replace(/\\/g, "\\\\")}`));
          const text = await page.evaluate(() => (globalThis as unknown as { document: { body: { textContent: string } } }).document.body.textContent);
          assert.doesNotMatch(text, /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/u, "no raw control reaches the page");
        },
        { cleanup: () => Promise.all([k.dispose(), sabakan.close()]) },
      );
    });
  },
);
