import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HOLD_ANNOTATION } from "../../src/domain/holds/machine-holds.js";
import type { RepairConfig } from "../../src/domain/queue/repair-config.js";
import type { SuccessProof } from "../../src/domain/proof/repair-evidence.js";
import { ok } from "../support/fake-command-runner.js";
import { harnessRepair, harnessStep, startRunnerHarness, withHarness, type RunnerHarness } from "../support/runner-harness.js";
import { until } from "../support/until.js";

// CKE's health rule at every step, through the real runner on the real store (fake commands and Kubernetes, a
// clock the test moves): a machine that recovers late succeeds, and the next step's command never runs.

const ADDRESS = "10.0.0.1";
/** Step 1: `repair` (no drain), watch 60 s. Step 2: drain, then `repair2`. Every command succeeds at once. */
const twoSteps = (proof?: SuccessProof): RepairConfig => {
  const repair = harnessRepair([harnessStep(), harnessStep({ needDrain: true, repairCommand: ["repair2"] })]);
  const [procedure] = repair.repairProcedures;
  const operation = procedure!.repairOperations[0]!;
  return { ...repair, repairProcedures: [{ ...procedure!, repairOperations: [{ ...operation, ...(proof && { successProof: proof }) }] }] };
};

/** Runs step 1, lets its watch run out, and has step 2's drain refused by the dry run: the entry backs off. */
async function backOffInStep2(h: RunnerHarness): Promise<number> {
  h.nodes.addNode("node1", ADDRESS);
  h.nodes.addPod("node1", { namespace: "db", name: "mysql-0", controllerKind: "StatefulSet" });
  h.nodes.evictionAnswer = () => ({ kind: "error", message: "Cannot evict pod as it would violate the pod's disruption budget." });
  const entry = await h.add(ADDRESS);
  h.runner.start();
  await until("step 1's command ran", () => h.commands.ran("repair").length === 1);
  h.advance(61_000);
  await h.pass();
  await until("step 2's drain backs off", () => h.entries.get(entry.index)?.drainBackoffCount === 1);
  assert.equal(h.entries.get(entry.index)?.step, 1);
  // From now on the drain would go through: only the health rule keeps step 2's command from running.
  h.nodes.evictionAnswer = () => ({ kind: "evicted" });
  return entry.index;
}

describe("RepairRunner: CKE's health rule at every step", () => {
  it("a machine that recovers during step 2's drain back-off succeeds at once, and step 2's command never runs", () =>
    withHarness(
      startRunnerHarness(twoSteps(), () => ok()),
      async (h) => {
        const index = await backOffInStep2(h);
        h.advance(10_000);
        h.healthy.add(ADDRESS);
        await h.pass();
        await until("the entry succeeds", () => h.entries.get(index)?.status === "succeeded");
        h.advance(600_000);
        await h.pass();
        assert.deepEqual(h.commands.ran("repair2"), [], "step 2's command never ran");
        assert.deepEqual(h.nodes.node("node1"), { unschedulable: false, cordonedBy: undefined });
      },
    ));

  it("with success_requires, the late recovery is proven by the dwell that starts during the back-off, and the drain is not retried meanwhile", () =>
    withHarness(
      startRunnerHarness(twoSteps({ requires: [], dwellSeconds: 30 }), () => ok()),
      async (h) => {
        const index = await backOffInStep2(h);
        // The machine recovers 10 s before the back-off (at least 300 s with random 0) expires.
        h.advance(290_000);
        h.healthy.add(ADDRESS);
        await h.pass();
        const notes = async () => (await h.entries.history(index)).map((r) => r.reason);
        assert.ok(
          (await notes()).some((r) => /^step 2: proof of repair: dwell started/.test(r)),
          (await notes()).join("\n"),
        );
        // The back-off is over, the dwell is not: the drain is not retried.
        h.advance(20_000);
        await h.pass();
        assert.equal(h.entries.get(index)?.stepStatus, "waiting");
        assert.equal(h.runner.waitingFor(index)?.kind, "DWELL");
        assert.deepEqual(h.nodes.callsOf("cordon"), [], "no drain cordoned the node");
        h.advance(11_000);
        await h.pass();
        await until("the entry succeeds", () => h.entries.get(index)?.status === "succeeded");
        assert.deepEqual(h.commands.ran("repair2"), [], "step 2's command never ran");
        assert.ok(
          (await notes()).some((r) => /^step 2: proof of repair: repair proven$/.test(r)),
          (await notes()).join("\n"),
        );
      },
    ));

  it("a machine healthy while its drain's eviction job retries a refused eviction succeeds: the drain stops, its node is uncordoned, no command runs", () =>
    withHarness(
      startRunnerHarness(harnessRepair([harnessStep({ needDrain: true })], { evictRetries: 1000, evictInterval: 1 }), () => ok()),
      async (h) => {
        h.nodes.addNode("node1", ADDRESS);
        // A protected namespace's budget refuses every real eviction: the job retries every second, for 1,000 s.
        h.nodes.addPod("node1", { namespace: "db", name: "mysql-0", controllerKind: "StatefulSet" });
        h.nodes.evictionAnswer = (_pod, dryRun) => (dryRun ? { kind: "evicted" } : { kind: "refused", message: "would violate the disruption budget" });
        const entry = await h.add(ADDRESS);
        h.runner.start();
        await until("the drain retries refused evictions", () => h.nodes.callsOf("evict").length >= 3);
        assert.equal(h.runner.jobs.kindOf(entry.index), "drain");
        assert.equal(h.nodes.node("node1")?.unschedulable, true, "cordoned by the drain");
        h.healthy.add(ADDRESS);
        await h.pass();
        await until("the entry succeeds", () => h.entries.get(entry.index)?.status === "succeeded");
        await until("the node is uncordoned", () => h.nodes.node("node1")?.unschedulable === false);
        const evictions = h.nodes.callsOf("evict").length;
        await until("the drain job has ended", () => h.runner.jobs.kindOf(entry.index) === "none");
        assert.equal(h.nodes.callsOf("evict").length, evictions, "the drain stopped retrying");
        assert.deepEqual(h.commands.ran("repair"), []);
      },
    ));
  it("a held machine that recovers succeeds: a hold stops commands, never a success, so its success command does not run", () =>
    withHarness(
      startRunnerHarness(harnessRepair([harnessStep()], {}, ["report-success"]), () => ok()),
      async (h) => {
        h.nodes.addNode("node1", ADDRESS);
        const entry = await h.add(ADDRESS);
        h.runner.start();
        await until("step 1's command ran", () => h.commands.ran("repair").length === 1);
        h.nodes.annotate("node1", HOLD_ANNOTATION, "vendor on site");
        await h.pass();
        h.healthy.add(ADDRESS);
        // A recovery is seen at the next tick: within one, a pass reuses the entry's verdict.
        h.advance(10_000);
        await h.pass();
        await until("the entry succeeds", () => h.entries.get(entry.index)?.status === "succeeded");
        assert.deepEqual(h.commands.ran("report-success"), [], "no success command on a held machine");
        const reasons = (await h.entries.history(entry.index)).map((r) => r.reason);
        assert.ok(
          reasons.some((r) =>
            /^healthy while the machine is held \(held by .*vendor on site.*\): the entry succeeds, but its success command is not run$/.test(r),
          ),
          reasons.join("\n"),
        );
      },
    ));
});
