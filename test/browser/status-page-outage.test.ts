import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import type { Page } from "playwright-core";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { CHROMIUM, STEP_TIMEOUT_MS, withChromium } from "../support/graphiql-browser.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { addRacks, openStatusPage, outageShows, queueShows, rendersAt, watchPage } from "../support/status-page.js";
import { tempDir } from "../support/temp-dir.js";

/** The page's socket backs off up to 10 s between tries: a generous bound for a broken page, never a speed test. */
const RECONNECT_DEADLINE_MS = 60_000;
/** Where the screenshots are kept (git-ignored), next to the other status page tests'. */
const ARTIFACTS = join(process.cwd(), "test-artifacts");
/** The widths the issue names: a laptop's and a small screen's. */
const WIDTHS = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const;

/** What kintsugi stored before the outage: the page must show it whatever sabakan or Kubernetes do. */
interface Stored {
  readonly entryIndex: string;
  readonly heldAddress: string;
  readonly polls: readonly string[];
}

interface World {
  readonly sabakan: FakeSabakan;
  readonly kube: FakeKubeApi;
  k: TestKintsugi;
  readonly origin: string;
  readonly stored: Stored;
}

async function gqlData(k: TestKintsugi, document: string): Promise<Record<string, any>> {
  const answer = await k.gql(document);
  assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
  return answer.data!;
}

/** sabakan (12 machines in 3 racks) and a Kubernetes API, kintsugi with an entry, a hold and a poll that worked. */
async function startWorld(databasePath: string): Promise<World> {
  const sabakan = await startFakeSabakan();
  addRacks(sabakan, 12, 3);
  const kube = await startFakeKubeApi();
  const k = await startTestKintsugi(configFor(sabakan, kube), { databasePath, startSchedule: false });
  const added = await gqlData(k, `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.0.0.5") { index } }`);
  await gqlData(k, `mutation { holdMachine(address: "10.0.0.7", reason: "disk swap") { address } }`);
  const polled = await gqlData(k, `mutation { runAutoRepair { sequence error } }`);
  assert.equal(polled["runAutoRepair"].error, null);
  return {
    sabakan,
    kube,
    k,
    origin: new URL(k.url).origin,
    stored: { entryIndex: added["addRepairEntry"].index, heldAddress: "10.0.0.7", polls: [polled["runAutoRepair"].sequence] },
  };
}

function configFor(sabakan: FakeSabakan, kube: FakeKubeApi) {
  return {
    sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 },
    kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 5 },
  };
}

/** A poll now: it fails while sabakan or Kubernetes is away, and kintsugi learns so. Returns its sequence. */
async function failedPoll(k: TestKintsugi, why: RegExp): Promise<string> {
  const polled = await gqlData(k, `mutation { runAutoRepair { sequence error } }`);
  assert.match(polled["runAutoRepair"].error ?? "", why);
  return polled["runAutoRepair"].sequence;
}

/** When kintsugi says `name` went down, as the API sends it (ISO). */
async function downSince(k: TestKintsugi, name: string): Promise<string> {
  const data = await gqlData(k, "{ dependencies { name downSince } }");
  const since = data["dependencies"].find((d: { name: string }) => d.name === name)?.downSince;
  assert.ok(since, `kintsugi says ${name} is down: ${JSON.stringify(data)}`);
  return since;
}

/**
 * At each width: the banner names the dependency and since when (the time kintsugi gives, in the tooltip), the queue,
 * holds and polls show what kintsugi stored, no panel of kintsugi's own data has an error, no token hint is given, and
 * the banner is on the first screen. A screenshot of each width goes to test-artifacts/.
 */
async function checkAtBothWidths(t: TestContext, page: Page, k: TestKintsugi, dependency: string, stored: Stored, shot: string): Promise<void> {
  const since = await downSince(k, dependency);
  for (const size of WIDTHS) {
    await rendersAt(page, size);
    const line = await outageShows(page, dependency, since, STEP_TIMEOUT_MS);
    assert.match(
      line,
      new RegExp(`^${dependency === "sabakan" ? "sabakan" : "Kubernetes"} is unreachable since \\d\\d:\\d\\d:\\d\\d \\(\\d+ failed calls?\\)`),
    );
    await queueShows(page, stored.entryIndex, true, STEP_TIMEOUT_MS);
    assert.match((await page.locator("#holds").textContent()) ?? "", new RegExp(`${stored.heldAddress.replace(/\./g, "\\.")}disk swap`));
    const polls = (await page.locator("#outcomes").textContent()) ?? "";
    for (const sequence of stored.polls) assert.match(polls, new RegExp(`#${sequence} at \\d\\d:\\d\\d:\\d\\d`), `poll #${sequence} is shown`);
    assert.equal(
      await page.locator("#queue .panel-error, #holds .panel-error, #outcomes .panel-error, #timeline .panel-error").count(),
      0,
      "kintsugi's own panels read fine",
    );
    assert.doesNotMatch((await page.locator("body").textContent()) ?? "", /token/i, "no token hint: nothing was refused");
    const box = await page.locator("#outage").boundingBox();
    assert.ok(box && box.y + box.height <= size.height, `the banner is on the first screen at ${size.width} px: ${JSON.stringify(box)}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    const path = join(ARTIFACTS, `${shot}-${size.width}.png`);
    await page.screenshot({ path, fullPage: true });
    t.diagnostic(`screenshot: ${path}`);
  }
}

describe("the status page in an outage", { skip: existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM}` }, () => {
  it(
    "sabakan down: the banner comes live, the racks say they cannot be read, and a fresh load still shows the queue, holds and polls",
    { timeout: 300_000 },
    async (t) => {
      const dir = tempDir();
      const world = await startWorld(join(dir.path, "kintsugi.db"));
      let watch: ReturnType<typeof watchPage> | null = null;
      await withChromium(
        t,
        async ({ context, page }) => {
          watch = watchPage(context, page);
          await page.setViewportSize(WIDTHS[0]);
          await openStatusPage(page, world.origin, 12, STEP_TIMEOUT_MS);
          await world.sabakan.close();
          const failed = await failedPoll(world.k, /sabakan/);
          const stored = { ...world.stored, polls: [...world.stored.polls, failed] };
          // Told by the dependencyEvents subscription, without a reload.
          await outageShows(page, "sabakan", await downSince(world.k, "sabakan"), STEP_TIMEOUT_MS);
          await page.reload();
          await page
            .locator("#racks-error")
            .filter({ hasText: /^cannot read the machines from sabakan: .*unreachable/ })
            .waitFor();
          assert.equal(await page.locator("#racks-summary").textContent(), "no machine known yet (sabakan cannot be read)");
          await checkAtBothWidths(t, page, world.k, "sabakan", stored, "status-outage-sabakan");
          assert.match((await page.locator("#outcomes").textContent()) ?? "", new RegExp(`#${failed} at .*error: .*sabakan`));
        },
        { cleanup: () => closeWorld(world, dir), diagnostics: () => JSON.stringify(watch) },
      );
    },
  );

  it("Kubernetes down: the banner names it, the racks and kintsugi's own panels show", { timeout: 300_000 }, async (t) => {
    const dir = tempDir();
    const world = await startWorld(join(dir.path, "kintsugi.db"));
    await withChromium(
      t,
      async ({ page }) => {
        await world.kube.close();
        const failed = await failedPoll(world.k, /cannot list Kubernetes nodes/);
        await page.setViewportSize(WIDTHS[0]);
        await openStatusPage(page, world.origin, 12, STEP_TIMEOUT_MS);
        assert.equal(await page.locator("#racks-error").isHidden(), true, "sabakan answers: the racks read fine");
        await checkAtBothWidths(t, page, world.k, "kubernetes", { ...world.stored, polls: [...world.stored.polls, failed] }, "status-outage-kubernetes");
      },
      { cleanup: () => closeWorld(world, dir) },
    );
  });

  it(
    "kintsugi restarting while sabakan is down: the page reconnects and shows the stored queue, holds and polls under the banner",
    { timeout: 300_000 },
    async (t) => {
      const dir = tempDir();
      const databasePath = join(dir.path, "kintsugi.db");
      const world = await startWorld(databasePath);
      const port = Number(new URL(world.k.url).port);
      await withChromium(
        t,
        async ({ page }) => {
          await page.setViewportSize(WIDTHS[0]);
          await openStatusPage(page, world.origin, 12, STEP_TIMEOUT_MS);
          await world.k.dispose();
          await page
            .locator("#connection")
            .filter({ hasText: /^disconnected since \d\d:\d\d:\d\d/ })
            .waitFor({ timeout: RECONNECT_DEADLINE_MS });
          await world.sabakan.close();
          world.k = await startTestKintsugi(
            { ...configFor(world.sabakan, world.kube), listen: { host: "127.0.0.1", port } },
            { databasePath, startSchedule: false },
          );
          assert.equal(new URL(world.k.url).origin, world.origin, "the new server took the same port");
          await page
            .locator("#connection-note")
            .filter({ hasText: /^\(was disconnected / })
            .waitFor({ timeout: RECONNECT_DEADLINE_MS });
          // The new process learnt sabakan is away from the page's own read of the machines.
          await page
            .locator("#racks-error")
            .filter({ hasText: /showing their last known states$/ })
            .waitFor();
          assert.equal(await page.locator("#racks").getAttribute("data-machines"), "12", "the last known racks stay drawn");
          await checkAtBothWidths(t, page, world.k, "sabakan", world.stored, "status-outage-restart");
        },
        { cleanup: () => closeWorld(world, dir) },
      );
    },
  );
});

async function closeWorld(world: World, dir: { remove(): void }): Promise<void> {
  await world.k.dispose();
  // Some are closed by the test already; closing again is harmless.
  await Promise.allSettled([world.sabakan.close(), world.kube.close()]);
  dir.remove();
}
