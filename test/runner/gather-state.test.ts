import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CommandOutcome } from "../../src/domain/queue/command-outcome.js";
import { commandStarted } from "../../src/domain/queue/command-marker.js";
import { createRepairEntry, type RepairEntry } from "../../src/domain/queue/repair-entry.js";
import { gatherObservations } from "../../src/runner/gather-state.js";
import { JobRegistry } from "../../src/runner/job-registry.js";
import { CORDONED_BY_ANNOTATION, type ClusterNode, type NodeOperator } from "../../src/adapters/ports.js";
import { NOW, TEST_REPAIR_CONFIG } from "../support/fixtures.js";

const entry = (index: number, address: string): RepairEntry => ({
  ...createRepairEntry({ address, machineType: "qemu", operation: "unreachable", serial: null, source: "operator" }, NOW),
  index,
  status: "processing",
  stepStatus: "watching",
});

/** A command runner that records the address each health check asks about and answers unhealthy. */
function recordingChecks(checked: string[]) {
  return {
    async run(argv: readonly string[]): Promise<CommandOutcome> {
      checked.push(argv.at(-1) as string);
      return { kind: "ok" as const, stdout: "false", stderr: "" };
    },
  };
}

/** What gatherObservations needs besides the commands and the jobs: no Kubernetes, one check at a time. */
const gatherDeps = (commands: Parameters<typeof gatherObservations>[1]["commands"], jobs: JobRegistry) => ({
  repair: TEST_REPAIR_CONFIG,
  commands,
  nodes: null,
  jobs,
  healthCheckConcurrency: 1,
  log: () => undefined,
  signal: new AbortController().signal,
});

describe("gatherObservations", () => {
  it("reports a job that ends while the health checks run as still running, so no entry is judged without a check", async () => {
    const jobs = new JobRegistry();
    let endCommand!: () => void;
    const commandDone = new Promise<void>((resolve) => (endCommand = resolve));
    // Entry 1's repair command is running as the pass starts: its health is not checked this pass.
    jobs.start(
      1,
      "repair-command",
      () => commandDone,
      () => undefined,
    );
    const checked: string[] = [];
    const commands = {
      async run(argv: readonly string[]): Promise<CommandOutcome> {
        checked.push(argv.at(-1) as string);
        // While entry 2 is being checked, entry 1's command ends (its job leaves the registry).
        endCommand();
        await jobs.idle();
        return { kind: "ok", stdout: "false", stderr: "" };
      },
    };
    const { observations } = await gatherObservations([entry(1, "10.0.0.1"), entry(2, "10.0.0.2")], gatherDeps(commands, jobs));
    assert.equal(jobs.kindOf(1), "none", "the job did end during the pass");
    assert.deepEqual(checked, ["10.0.0.2"]);
    assert.equal(observations.get(1)?.job, "repair-command", "seen as the pass found it, since its health was not checked");
    assert.equal(observations.get(1)?.healthy, undefined);
    assert.equal(observations.get(2)?.job, "none");
    assert.equal(observations.get(2)?.healthy, false);
  });

  const cases: ReadonlyArray<{ name: string; job: "repair-command" | "success-command" | "diagnostics" | "drain"; checked: string[] }> = [
    { name: "its repair command", job: "repair-command", checked: ["10.0.0.2"] },
    { name: "its success command", job: "success-command", checked: ["10.0.0.2"] },
    { name: "its diagnostics command", job: "diagnostics", checked: ["10.0.0.2"] },
    { name: "a drain (no command)", job: "drain", checked: ["10.0.0.1", "10.0.0.1", "10.0.0.2"] },
  ];
  for (const c of cases) {
    it(`checks no entry of a machine while another entry of it runs ${c.name} there`, async () => {
      const jobs = new JobRegistry();
      jobs.start(
        1,
        c.job,
        () => new Promise<void>(() => undefined),
        () => undefined,
      );
      const checked: string[] = [];
      await gatherObservations([entry(1, "10.0.0.1"), entry(3, "10.0.0.1"), entry(2, "10.0.0.2")], gatherDeps(recordingChecks(checked), jobs));
      assert.deepEqual(checked, c.checked);
    });
  }

  it("judges a deleted entry's inherited command too (it leaves the queue only once that has certainly ended), and checks no health there", async () => {
    const checked: string[] = [];
    const marker = commandStarted("repair", "1-1-1-ab", { replica: "gone", run: "r0" }, NOW - 5_000, 30);
    const { observations } = await gatherObservations([{ ...entry(1, "10.0.0.1"), deleted: true, command: marker }, entry(2, "10.0.0.2")], {
      ...gatherDeps(recordingChecks(checked), new JobRegistry()),
      fence: { owner: { replica: "here", run: "r1" }, marginSeconds: 10, now: NOW },
    });
    assert.deepEqual(observations.get(1)?.inherited, { kind: "may-run", marker, until: NOW + 35_000 });
    assert.equal(observations.get(1)?.healthy, undefined);
    assert.deepEqual(checked, ["10.0.0.2"]);
  });

  it("observes whether each entry's node is cordoned for it: its own cordon on an unschedulable node, not another's nor a lifted one", async () => {
    const node = (name: string, ip: string, unschedulable: boolean, owner: string | null): ClusterNode => ({
      name,
      internalIPs: [ip],
      unschedulable,
      annotations: owner === null ? {} : { [CORDONED_BY_ANNOTATION]: owner },
      labels: {},
      taints: [],
      conditions: [],
    });
    const nodes = [
      node("own", "10.0.0.1", true, "repair-entry-1"),
      node("lifted-by-hand", "10.0.0.2", false, "repair-entry-2"),
      node("another-entry", "10.0.0.3", true, "repair-entry-9"),
      node("not-kintsugi", "10.0.0.5", true, null),
    ];
    const deps = { ...gatherDeps(recordingChecks([]), new JobRegistry()), nodes: { listNodes: async () => nodes } as unknown as NodeOperator };
    const entries = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5"].map((address, i) => entry(i + 1, address));
    const { observations } = await gatherObservations(entries, deps);
    assert.deepEqual(
      entries.map((e) => observations.get(e.index)?.cordoned),
      [true, false, false, undefined, false],
    );
  });
});
