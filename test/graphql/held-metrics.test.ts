import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KintsugiConfig } from "../../src/config/kintsugi-config.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { NOW } from "../support/fixtures.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { parsePrometheus, sampleValue } from "../support/prometheus-text.js";
import { runCliInProcess } from "../support/in-process-cli.js";

const HELD = ["rack_limit", "queue_limit", "rebooting", "out_of_cluster"];
const SKIPPED = ["recently_repaired", "no_address", "invalid_address", "duplicate_address", "held"];

describe("GET /metrics: machines held back and skipped by the latest successful poll", () => {
  let k: TestKintsugi;
  let sabakan: FakeSabakan;
  let config: Partial<KintsugiConfig>;
  const options = { now: () => NOW, startSchedule: false };
  const scrape = async () => {
    const res = await fetch(`${k.url}/metrics`);
    assert.equal(res.status, 200);
    const { samples } = parsePrometheus(await res.text());
    const read = (name: string, reasons: string[]) => Object.fromEntries(reasons.map((reason) => [reason, sampleValue(samples, name, { reason })]));
    return { held: read("kintsugi_auto_repair_held_machines", HELD), skipped: read("kintsugi_auto_repair_skipped_machines", SKIPPED) };
  };
  const counts = (over: Record<string, number>, reasons: string[]) => Object.fromEntries(reasons.map((r) => [r, over[r] ?? 0]));
  const poll = async () => (await k.gql(`mutation { runAutoRepair { error } }`)).data?.["runAutoRepair"].error as string | null;

  before(async () => {
    sabakan = await startFakeSabakan({ now: () => NOW });
    config = {
      sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 30, maxResponseBytes: 1 << 20 },
      constraints: { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 600, maximumUnhealthyMachinesPerRack: 2 },
    };
    k = await startTestKintsugi(config, options);
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
  });

  it("exports every reason at 0 before any poll, so no series appears or vanishes later", async () => {
    assert.deepEqual(await scrape(), { held: counts({}, HELD), skipped: counts({}, SKIPPED) });
  });

  it("counts each reason of the latest poll, and keeps them through a failed poll and a restart", async () => {
    for (let i = 1; i <= 3; i++) sabakan.addMachine({ serial: `r3-${i}`, rack: 3, state: "UNHEALTHY" });
    sabakan.addMachine({ serial: "r1-1", rack: 1, state: "UNHEALTHY" });
    sabakan.addMachine({ serial: "r2-1", rack: 2, state: "UNREACHABLE" });
    sabakan.addMachine({ serial: "r4-1", rack: 4, state: "UNHEALTHY", ipv4: [] });
    assert.equal(await poll(), null);
    const first = { held: counts({ rack_limit: 3, out_of_cluster: 1 }, HELD), skipped: counts({ no_address: 1 }, SKIPPED) };
    assert.deepEqual(await scrape(), first, "r1-1 was enqueued");

    assert.equal(await poll(), null);
    const second = { held: first.held, skipped: counts({ no_address: 1, recently_repaired: 1 }, SKIPPED) };
    assert.deepEqual(await scrape(), second, "r1-1 now has an entry");

    sabakan.failWithStatus(500);
    assert.match((await poll()) ?? "", /HTTP 500/);
    assert.deepEqual(await scrape(), second, "a failed poll neither holds nor frees anything");

    k = await k.restart(config, options);
    assert.deepEqual(await scrape(), second, "after a restart, from the newest successful poll kept (the newest failed)");
  });

  it("drops a reason to 0 when the latest poll no longer has it", async () => {
    for (let i = 1; i <= 2; i++) sabakan.setState(`r3-${i}`, "HEALTHY");
    await k.gql(`mutation { setConstraint(name: "maximum-repair-queue-entries", value: 1) { maximumRepairQueueEntries } }`);
    assert.equal(await poll(), null);
    assert.deepEqual(
      await scrape(),
      {
        held: counts({ queue_limit: 1, out_of_cluster: 1 }, HELD),
        skipped: counts({ no_address: 1, recently_repaired: 1 }, SKIPPED),
      },
      "rack 3 is within the limit now, and its one unhealthy machine meets the queue's cap",
    );
  });

  it("counts every machine of a storm, though its outcome lists only 1,000 of them, and keeps the counts through a restart (GraphQL and the CLI say so)", async () => {
    for (let i = 0; i < 1_500; i++)
      sabakan.addMachine({
        serial: `storm-${String(i).padStart(4, "0")}`,
        rack: 100 + i,
        ipv4: [`10.200.${Math.floor(i / 256)}.${i % 256}`],
        state: "UNHEALTHY",
      });
    const outcome = (await k.gql(`mutation { runAutoRepair { error skippedTotal skippedByKind { kind machines } skipped { kind } } }`)).data?.["runAutoRepair"];
    assert.equal(outcome.error, null);
    assert.equal(outcome.skipped.length, 1_000);
    assert.equal(outcome.skippedTotal, 1_504);
    assert.deepEqual(outcome.skippedByKind, [
      { kind: "QUEUE_LIMIT", machines: 1_501 },
      { kind: "OUT_OF_CLUSTER", machines: 1 },
      { kind: "RECENTLY_REPAIRED", machines: 1 },
      { kind: "NO_ADDRESS", machines: 1 },
    ]);
    const storm = { held: counts({ queue_limit: 1_501, out_of_cluster: 1 }, HELD), skipped: counts({ no_address: 1, recently_repaired: 1 }, SKIPPED) };
    assert.deepEqual(await scrape(), storm, "the metrics count all 1,504, not the 1,000 listed");
    k = await k.restart(config, options);
    assert.deepEqual(await scrape(), storm, "after a restart, from the stored counts");
    const [kept] = (await k.gql(`{ autoRepairOutcomes(last: 1) { skippedTotal skipped { kind } } }`)).data?.["autoRepairOutcomes"] ?? [];
    assert.deepEqual([kept.skippedTotal, kept.skipped.length], [1_504, 1_000]);
    const cli = await runCliInProcess(["--server", k.url, "auto-repair", "outcomes", "--last", "1"]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout)[0].skippedTotal, 1_504, "the CLI's JSON carries the counts");
    assert.match(cli.stderr, /^poll \d+: 1,504 skipped \(first 1,000 listed\); skippedByKind counts them all\n$/);
  });
});
