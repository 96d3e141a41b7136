import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startDataCenter, RACKS, PER_RACK } from "../../scripts/demo/data-center.js";
import { sha256Hex } from "../../src/auth/tokens.js";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { CHROMIUM, STEP_TIMEOUT_MS, withChromium } from "../support/graphiql-browser.js";
import { TEST_REPAIR_CONFIG } from "../support/fixtures.js";
import { startTestKintsugi } from "../support/kintsugi-server.js";
import { addRacks, gotoStatusPage, openStatusPage, queueShows, rendersAt, watchPage } from "../support/status-page.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

/**
 * How long the test waits for a change to show. The goal is a second; the page applies each subscription
 * event as it arrives (it never polls), and the test prints how long each change took. Tests never assert speed on
 * this shared machine, so the deadline only bounds a broken page.
 */
const LIVE_DEADLINE_MS = 30_000;
/** Where the screenshot is kept (git-ignored); CI may archive it. */
const ARTIFACTS = join(process.cwd(), "test-artifacts");

const VIEWER_TOKEN = "kintsugi_status-page-test-viewer";

const addEntry = (address: string) => `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "${address}") { index } }`;

describe("the status page at /status", { skip: existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM}` }, () => {
  it(
    "renders the demo's racks, queue, holds and poll, follows changes as they happen, asks nothing of any other host, and is kept as a screenshot",
    { timeout: 300_000 },
    async (t) => {
      const dir = tempDir();
      const world = await startDataCenter(dir.path);
      const k = await startTestKintsugi(
        {
          sabakan: { url: world.sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 },
          kubernetes: { kubeconfig: world.kube.kubeconfigPath, timeoutSeconds: 10 },
          // The demo's limits.
          constraints: { maximumRepairQueueEntries: 12, maximumUnhealthyMachinesPerRack: 2, waitSecondsToRepairRebooting: 0 },
        },
        { startSchedule: false },
      );
      const origin = new URL(k.url).origin;
      let watch: ReturnType<typeof watchPage> | null = null;
      await withChromium(
        t,
        async ({ context, page }) => {
          world.sabakan.setState("r1m2", "UNHEALTHY");
          world.sabakan.setState("r3m1", "UNREACHABLE");
          const held = await k.gql(`mutation { holdMachine(address: "10.69.3.1", reason: "firmware <b>update</b>") { address } }`);
          assert.equal(held.errors, undefined, JSON.stringify(held.errors));
          const polled = await k.gql(`mutation { runAutoRepair { enqueued { index address } skipped { serial kind } error } }`);
          assert.equal(polled.errors, undefined, JSON.stringify(polled.errors));
          const outcome = polled.data?.["runAutoRepair"];
          assert.deepEqual(
            outcome.enqueued.map((e: { address: string }) => e.address),
            ["10.69.1.2"],
          );
          assert.deepEqual(
            outcome.skipped.map((s: { serial: string }) => s.serial),
            ["r3m1"],
            "the held machine is skipped",
          );
          const skipKind: string = outcome.skipped[0].kind;
          const polledIndex: string = outcome.enqueued[0].index;

          const front = await fetch(`${origin}/status`);
          assert.equal(front.status, 200, await front.text());
          assert.match(
            front.headers.get("content-security-policy") ?? "",
            /default-src 'none'; script-src 'self'; style-src 'self';.* connect-src 'self';.*frame-ancestors 'none'/,
          );
          assert.equal(front.headers.get("x-frame-options"), "DENY");

          watch = watchPage(context, page);
          await openStatusPage(page, origin, RACKS * PER_RACK, STEP_TIMEOUT_MS);
          assert.equal(await page.locator("#racks").getAttribute("data-racks"), String(RACKS));
          assert.equal(await page.locator("#racks-summary").textContent(), `${RACKS * PER_RACK} machines in ${RACKS} racks`);
          await queueShows(page, polledIndex, true, STEP_TIMEOUT_MS);
          assert.match((await page.locator(`#queue tr[data-key="${polledIndex}"]`).textContent()) ?? "", /10\.69\.1\.2.*QUEUED/);
          // What the server sends is text: markup in a hold's reason shows as written and makes no element.
          assert.match((await page.locator("#holds").textContent()) ?? "", /10\.69\.3\.1firmware <b>update<\/b>/);
          assert.equal(await page.locator("#holds b, #outcomes b").count(), 0, "markup from the server became elements");
          assert.match((await page.locator("#outcomes").textContent()) ?? "", new RegExp(`2 machines seen, 1 enqueued, 1 skipped.*r3m1.*${skipKind}`));
          // Each rack's header: its unhealthy machines against the demo's rack limit of 2, and its held machine.
          const headers = (await page.locator("#racks").getAttribute("data-rack-headers")) ?? "";
          assert.match(headers, /(^|, )1:1\/2(,|$)/, headers);
          assert.match(headers, /(^|, )3:1\/2 held 1(,|$)/, headers);
          // Under the 26 px header of 28 px cells.
          await page.locator("#racks").hover({ position: { x: 2, y: 30 } });
          assert.match((await page.locator("#racks-tooltip").textContent()) ?? "", /^r0m1 \(rack 0, 10\.69\.0\.1\): HEALTHY$/);

          // "live" says the subscriptions listen (the page read its snapshot after kintsugi said so): no probing.
          const added = await k.gql(addEntry("10.69.2.3"));
          assert.equal(added.errors, undefined, JSON.stringify(added.errors));
          let since = performance.now();
          await queueShows(page, added.data?.["addRepairEntry"].index, true, LIVE_DEADLINE_MS);
          t.diagnostic(`an added entry showed ${Math.round(performance.now() - since)} ms after addRepairEntry answered`);
          const removed = await k.gql(`mutation { deleteRepairEntry(index: ${polledIndex}) { index } }`);
          assert.equal(removed.errors, undefined, JSON.stringify(removed.errors));
          since = performance.now();
          await queueShows(page, polledIndex, false, LIVE_DEADLINE_MS);
          t.diagnostic(`a deleted entry left the queue ${Math.round(performance.now() - since)} ms after deleteRepairEntry answered`);

          mkdirSync(ARTIFACTS, { recursive: true });
          const shot = join(ARTIFACTS, "status.png");
          await page.screenshot({ path: shot, fullPage: true });
          t.diagnostic(`screenshot: ${shot}`);
          // The two widths: a laptop's and a small screen's, each looked at by a person.
          for (const size of [
            { width: 1440, height: 900 },
            { width: 1024, height: 768 },
          ]) {
            await rendersAt(page, size);
            const path = join(ARTIFACTS, `status-${size.width}.png`);
            await page.screenshot({ path, fullPage: true });
            t.diagnostic(`screenshot: ${path}`);
          }

          assert.deepEqual(
            watch.requests.filter((url) => new URL(url).origin !== origin),
            [],
            `requests to anywhere but ${origin}`,
          );
          assert.deepEqual(watch.sockets, [`${origin.replace(/^http/, "ws")}/graphql`], "one WebSocket, to this origin's /graphql");
          assert.deepEqual(watch.failures, [], "failed requests");
          assert.deepEqual(watch.errors, [], "errors in the page");
        },
        {
          cleanup: async () => {
            await k.dispose();
            await world.close();
            dir.remove();
          },
          diagnostics: () => JSON.stringify(watch),
        },
      );
    },
  );

  it("renders 10,000 machines in 350 racks without errors", { timeout: 300_000 }, async (t) => {
    const sabakan = await startFakeSabakan();
    addRacks(sabakan, 10_000, 350);
    const k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 30, maxResponseBytes: 1 << 26 } },
      { startSchedule: false },
    );
    const origin = new URL(k.url).origin;
    let watch: ReturnType<typeof watchPage> | null = null;
    await withChromium(
      t,
      async ({ context, page }) => {
        await page.setViewportSize({ width: 1440, height: 900 });
        const front = await fetch(`${origin}/status`);
        assert.equal(front.status, 200, await front.text());
        assert.match(
          front.headers.get("content-security-policy") ?? "",
          /default-src 'none'; script-src 'self'; style-src 'self';.* connect-src 'self';.*frame-ancestors 'none'/,
        );
        assert.equal(front.headers.get("x-frame-options"), "DENY");

        watch = watchPage(context, page);
        await openStatusPage(page, origin, 10_000, STEP_TIMEOUT_MS);
        assert.equal(await page.locator("#racks").getAttribute("data-racks"), "350");
        const box = await page.locator("#racks").boundingBox();
        assert.ok(box && box.width <= 1440, `the grid fits a laptop screen's width: ${JSON.stringify(box)}`);
        assert.deepEqual(watch.failures, [], "failed requests");
        assert.deepEqual(watch.errors, [], "errors in the page");
      },
      { cleanup: async () => (await k.dispose(), await sabakan.close()), diagnostics: () => JSON.stringify(watch) },
    );
  });

  it("shows nothing without the viewer role, says why, and renders with the viewer token GraphiQL stored", { timeout: 300_000 }, async (t) => {
    const sabakan = await startFakeSabakan();
    addRacks(sabakan, 12, 3);
    const k = await startTestKintsugi({
      sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 },
      auth: { anonymous: "none", tokens: [{ name: "status-viewer", role: "viewer", sha256: sha256Hex(VIEWER_TOKEN) }], allowedOrigins: [], allowedHosts: [] },
    });
    const origin = new URL(k.url).origin;
    await withChromium(
      t,
      async ({ page }) => {
        await gotoStatusPage(page, origin);
        await page.locator('#connection[data-state="error"]').waitFor();
        assert.match((await page.locator("#connection").textContent()) ?? "", /needs a token.*\(a viewer token can be set in GraphiQL at \/\)/);
        assert.equal(await page.locator("#racks").getAttribute("data-machines"), null, "no machine shown without a token");

        await page.evaluate(
          (token) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem("kintsugi.token", token),
          VIEWER_TOKEN,
        );
        await openStatusPage(page, origin, 12, STEP_TIMEOUT_MS);
        assert.equal(await page.locator("#racks-summary").textContent(), "12 machines in 3 racks");
      },
      { cleanup: async () => (await k.dispose(), await sabakan.close()) },
    );
  });

  it("shows each running entry's step progress and what a queued one waits for", { timeout: 300_000 }, async (t) => {
    const sabakan = await startFakeSabakan();
    addRacks(sabakan, 12, 3);
    // One repair at a time, whose first step watches for an hour: the first entry stays in it, the second waits.
    const watching = { repairCommand: ["true"], commandTimeoutSeconds: 30, commandRetries: 0, commandInterval: 0, needDrain: false, watchSeconds: 3600 };
    const base = TEST_REPAIR_CONFIG.repairProcedures[0]!.repairOperations[0]!;
    const k = await startTestKintsugi(
      {
        sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 },
        repair: {
          ...TEST_REPAIR_CONFIG,
          maxConcurrentRepairs: 1,
          repairProcedures: [
            { machineTypes: ["qemu"], repairOperations: [{ ...base, healthCheckCommand: ["echo", "false"], repairSteps: [watching, watching] }] },
          ],
        },
      },
      { startSchedule: false, startRunner: true },
    );
    const origin = new URL(k.url).origin;
    await withChromium(
      t,
      async ({ page }) => {
        const first = await k.gql(addEntry("10.0.0.1"));
        const second = await k.gql(addEntry("10.0.0.2"));
        assert.equal(first.errors ?? second.errors, undefined, JSON.stringify(first.errors ?? second.errors));
        await openStatusPage(page, origin, 12, STEP_TIMEOUT_MS);
        const row = (index: string) => page.locator(`#queue tr[data-key="${index}"]`);
        await row(first.data?.["addRepairEntry"].index)
          .filter({ hasText: /PROCESSINGstep 1 of 2: WATCHING/ })
          .waitFor();
        await row(second.data?.["addRepairEntry"].index)
          .filter({ hasText: /QUEUED.*CONCURRENCY: / })
          .waitFor();
        // The glance, first on the page: what is repaired at which step, what waits and why.
        const now = (group: string) => page.locator(`#now [data-group="${group}"]`);
        await now("repairing")
          .filter({
            hasText: new RegExp(
              `^Being repaired \\(1\\)#${first.data?.["addRepairEntry"].index} 10\\.0\\.0\\.1: unreachable, step 1 of 2 WATCHING \\(WATCHING: step 1: watching the health check`,
            ),
          })
          .waitFor()
          .catch(async (err: unknown) => {
            // Whether the page or the server is behind: what the server says now.
            t.diagnostic(`the server says: ${JSON.stringify((await k.gql("{ searchRepairEntries { index stepStatus waitingFor { kind message } } }")).data)}`);
            throw err;
          });
        await now("waiting")
          .filter({ hasText: new RegExp(`^Waiting \\(1\\)#${second.data?.["addRepairEntry"].index} 10\\.0\\.0\\.2: CONCURRENCY: `) })
          .waitFor();
        assert.match((await now("held").textContent()) ?? "", /^Held \(0\)No machine is held\.$/);
        const [nowBox, racksBox] = await Promise.all([page.locator("#now").boundingBox(), page.locator("#racks").boundingBox()]);
        assert.ok(nowBox && racksBox && nowBox.y < racksBox.y, "the now panel comes before the racks");
      },
      { cleanup: async () => (await k.dispose(), await sabakan.close()) },
    );
  });

  it("moves a repair that finishes from the queue to the last day's timeline, where it stays after its entry is deleted", { timeout: 300_000 }, async (t) => {
    const sabakan = await startFakeSabakan();
    addRacks(sabakan, 12, 3);
    const k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 } },
      { startSchedule: false, startRunner: true },
    );
    const origin = new URL(k.url).origin;
    let watch: ReturnType<typeof watchPage> | null = null;
    await withChromium(
      t,
      async ({ context, page }) => {
        watch = watchPage(context, page);
        await openStatusPage(page, origin, 12, STEP_TIMEOUT_MS);
        // Without Kubernetes or a sabakan machine at this address the runner finishes the entry at once (it fails):
        // either way it leaves the queue for the timeline.
        const added = await k.gql(addEntry("10.0.0.5"));
        assert.equal(added.errors, undefined, JSON.stringify(added.errors));
        const index: string = added.data?.["addRepairEntry"].index;
        const finished = await until(
          "the entry finishes",
          async () => (await k.gql(`{ repairEntry(index: ${index}) { status lastTransitionTime } }`)).data?.["repairEntry"],
          (e) => e?.status === "SUCCEEDED" || e?.status === "FAILED",
          STEP_TIMEOUT_MS,
        );
        const row = page.locator(`#timeline tr[data-key="${index}"]`).filter({ hasText: `10.0.0.5unreachable${finished.status}` });
        const mark = page.locator(`#timeline .mark.${finished.status === "SUCCEEDED" ? "ok" : "failed"}[data-key="${index}"]`);
        await row.waitFor();
        // One time format: local HH:MM:SS, the full ISO time in the tooltip.
        assert.match((await row.locator("td").first().textContent()) ?? "", /^\d\d:\d\d:\d\d$/);
        assert.match((await row.locator("td").first().getAttribute("title")) ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
        await queueShows(page, index, false, STEP_TIMEOUT_MS);
        assert.equal(await mark.count(), 1, "one mark on the 24-hour strip");
        assert.match((await page.locator("#timeline h2").textContent()) ?? "", /Last day's repairs \(1\)/);

        // CKE's users delete finished entries routinely: the runner dequeues it, its finished-repair record stays.
        const deleted = await k.gql(`mutation { deleteFinishedRepairEntries { index } }`);
        assert.equal(deleted.errors, undefined, JSON.stringify(deleted.errors));
        await until(
          "the runner dequeues the entry",
          async () => (await k.gql(`{ repairEntry(index: ${index}) { index } }`)).data?.["repairEntry"] ?? null,
          (e) => e === null,
          STEP_TIMEOUT_MS,
        );
        // Events arrive in commit order: once a later entry shows, the page has applied the dequeue.
        const later = await k.gql(addEntry("10.0.0.6"));
        assert.equal(later.errors, undefined, JSON.stringify(later.errors));
        const laterIndex: string = later.data?.["addRepairEntry"].index;
        await page.locator(`#queue tr[data-key="${laterIndex}"], #timeline tr[data-key="${laterIndex}"]`).first().waitFor();
        assert.equal(await row.count(), 1, "the row stays after the entry left the queue");
        assert.equal(await mark.count(), 1, "the mark stays after the entry left the queue");
        // A fresh load reads it from the records.
        await openStatusPage(page, origin, 12, STEP_TIMEOUT_MS);
        await row.waitFor();
        assert.equal(await mark.count(), 1, "the mark is drawn from the records");

        assert.deepEqual(
          watch.requests.filter((url) => new URL(url).origin !== origin),
          [],
          `requests to anywhere but ${origin}`,
        );
        assert.deepEqual(watch.failures, [], "failed requests");
        assert.deepEqual(watch.errors, [], "errors in the page");
      },
      { cleanup: async () => (await k.dispose(), await sabakan.close()), diagnostics: () => JSON.stringify(watch) },
    );
  });
});
