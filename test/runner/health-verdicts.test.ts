import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRepairEntry, type RepairEntry } from "../../src/domain/queue/repair-entry.js";
import { HealthVerdicts } from "../../src/runner/health-verdicts.js";
import { JobRegistry } from "../../src/runner/job-registry.js";
import { ok } from "../support/fake-command-runner.js";
import { NOW } from "../support/fixtures.js";
import { harnessRepair, harnessStep, startRunnerHarness, withHarness } from "../support/runner-harness.js";
import { until } from "../support/until.js";

const INTERVAL = 10_000;
const entry: RepairEntry = { ...createRepairEntry({ address: "10.0.0.1", machineType: "m", operation: "op", serial: null, source: "test" }, NOW), index: 1 };

describe("HealthVerdicts (an entry's verdict reused within one runner interval while the entry stays where it was)", () => {
  const cases: Array<{ name: string; later: number; then?: Partial<RepairEntry>; jobGeneration?: number; reused: boolean }> = [
    { name: "the same entry within the interval", later: INTERVAL - 1, reused: true },
    { name: "a whole interval later", later: INTERVAL, reused: false },
    { name: "the entry moved to another step", later: 1, then: { step: 1 }, reused: false },
    { name: "the entry started processing", later: 1, then: { status: "processing" }, reused: false },
    { name: "the entry started draining", later: 1, then: { stepStatus: "draining" }, reused: false },
    { name: "the entry made a transition", later: 1, then: { lastTransitionTime: NOW + 1 }, reused: false },
    { name: "the entry backed off again", later: 1, then: { drainBackoffCount: 1 }, reused: false },
    { name: "a job of the entry started or ended, the entry staying where it was", later: 1, jobGeneration: 8, reused: false },
  ];
  for (const { name, later, then, jobGeneration, reused } of cases) {
    it(`${reused ? "reuses" : "checks again"}: ${name}`, () => {
      let now = NOW;
      const verdicts = new HealthVerdicts(INTERVAL, () => now);
      verdicts.record(entry, false, 7);
      now += later;
      assert.equal(verdicts.fresh({ ...entry, ...then }, jobGeneration ?? 7), reused ? false : undefined);
    });
  }

  it("keeps the verdicts of live entries only", () => {
    const verdicts = new HealthVerdicts(INTERVAL, () => NOW);
    verdicts.record(entry, true, 0);
    verdicts.retain(new Set([2]));
    assert.equal(verdicts.fresh(entry, 0), undefined);
  });
});

describe("JobRegistry.generation (what a kept verdict's jobs were)", () => {
  it("changes when a job starts and when it ends, and never comes back to an earlier value", async () => {
    const jobs = new JobRegistry();
    const seen = [jobs.generation(1)];
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    jobs.start(
      1,
      "repair-command",
      () => ended,
      () => undefined,
    );
    seen.push(jobs.generation(1));
    end();
    await jobs.idle();
    seen.push(jobs.generation(1));
    jobs.forget(1);
    jobs.start(
      1,
      "success-command",
      async () => undefined,
      () => undefined,
    );
    await jobs.idle();
    seen.push(jobs.generation(1));
    assert.equal(new Set(seen).size, seen.length, JSON.stringify(seen));
  });
});

describe("RepairRunner: nothing decided on a verdict kept from an earlier pass", () => {
  it("checks a waiting entry again before its repair starts within the interval: recovered meanwhile, it succeeds unrepaired", () =>
    withHarness(
      startRunnerHarness(harnessRepair([harnessStep()], { maxConcurrentRepairs: 1 }), (argv) => (argv[0] === "repair" ? "hold" : ok())),
      async (h) => {
        const [a, b] = [await h.add("10.0.0.1"), await h.add("10.0.0.2")];
        h.runner.start();
        const repairOfA = await h.commands.held("repair", "10.0.0.1");
        // Within the same interval both recover; a's command ends, which frees the slot b was waiting for.
        h.healthy.add("10.0.0.1");
        h.healthy.add("10.0.0.2");
        repairOfA.finish(ok());
        await until("both succeed", () => h.entries.get(a.index)?.status === "succeeded" && h.entries.get(b.index)?.status === "succeeded");
        assert.deepEqual(h.commands.ran("repair"), [["repair", "10.0.0.1"]], "b's repair never ran");
        const checksOfB = h.commands.ran("health").filter(([, address]) => address === "10.0.0.2").length;
        assert.ok(checksOfB >= 2, `b: checked at its add, and again before its turn (${checksOfB})`);
      },
    ));

  it("checks an entry again before failing it: healed within the interval, after its last step's watch it succeeds", () =>
    withHarness(
      startRunnerHarness(harnessRepair([harnessStep({ watchSeconds: 5 })]), () => ok()),
      async (h) => {
        const added = await h.add("10.0.0.1");
        h.runner.start();
        await until("the repair command's outcome is recorded", async () => (await h.history()).some((r) => /repair command succeeded/.test(r.reason)));
        // A pass after the command: its check finds the machine still unhealthy, a verdict kept for 10 s.
        await h.pass();
        const checks = () => h.commands.ran("health").length;
        const checked = checks();
        h.healthy.add("10.0.0.1");
        h.advance(6_000);
        await h.pass();
        assert.equal(h.entries.get(added.index)?.status, "succeeded", JSON.stringify((await h.history()).map((r) => r.reason)));
        assert.ok(checks() > checked, "checked again before deciding");
      },
    ));
});
