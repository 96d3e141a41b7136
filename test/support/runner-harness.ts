import assert from "node:assert/strict";
import { join } from "node:path";
import { EMPTY_REPAIR_CONFIG, type RepairConfig, type RepairStepConfig } from "../../src/domain/queue/repair-config.js";
import { createRepairEntry, type RepairEntry } from "../../src/domain/queue/repair-entry.js";
import type { RepairHistoryRecord } from "../../src/domain/queue/repair-history.js";
import { seededLedger } from "../../src/runner/pacing-ledger.js";
import { BmcDirectory } from "../../src/runner/bmc-directory.js";
import { RackDirectory } from "../../src/runner/rack-directory.js";
import { RepairRunner } from "../../src/runner/repair-runner.js";
import { openSqliteStore } from "../../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore, RepairChange, RepairEntryPort, SettingsPort } from "../../src/store/store-port.js";
import { FakeCommandRunner, ok, type Responder } from "./fake-command-runner.js";
import { FakeNodeOperator, type HeldCall } from "./fake-node-operator.js";
import { NOW } from "./fixtures.js";
import { tempDir } from "./temp-dir.js";
import { until } from "./until.js";

/** A step for the harness's operation: `repair` is the command; no drain, no retries, a 60 s watch. */
export const harnessStep = (over: Partial<RepairStepConfig> = {}): RepairStepConfig => ({
  repairCommand: ["repair"],
  commandTimeoutSeconds: 30,
  commandRetries: 0,
  commandInterval: 0,
  needDrain: false,
  watchSeconds: 60,
  ...over,
});

/** Machine type "m", operation "op": the health check is `health <address>`; no success command unless given. */
export const harnessRepair = (
  steps: RepairStepConfig[] = [harnessStep()],
  over: Partial<RepairConfig> = {},
  successCommand: string[] | null = null,
): RepairConfig => ({
  ...EMPTY_REPAIR_CONFIG,
  maxConcurrentRepairs: 10,
  repairProcedures: [
    {
      machineTypes: ["m"],
      repairOperations: [
        { operation: "op", repairSteps: steps, healthCheckCommand: ["health"], commandTimeoutSeconds: 30, successCommand, successCommandTimeout: 30 },
      ],
    },
  ],
  ...over,
});

export interface RunnerHarness {
  readonly runner: RepairRunner;
  /** The database file, for a second, raw connection (see withRawDatabase). */
  readonly path: string;
  readonly store: KintsugiStore;
  readonly entries: RepairEntryPort;
  readonly settings: SettingsPort;
  readonly commands: FakeCommandRunner;
  readonly nodes: FakeNodeOperator;
  /** Addresses whose health check answers "true"; every other answers "false". */
  readonly healthy: Set<string>;
  /** Addresses whose health check is held until the test finishes it (see `commands.held("health", address)`). */
  readonly healthHeld: Set<string>;
  /** Every entry change the store announced (the runner's and the test's), in order. */
  readonly published: RepairChange[];
  readonly logs: Array<{ level: string; message: string; fields: Record<string, unknown> | undefined }>;
  /** The racks pacing by rack reads (the test teaches it machines). */
  readonly pacingRacks: RackDirectory;
  /** The BMCs commands get in their environment (the test teaches it machines; no sabakan to look them up in). */
  readonly bmcs: BmcDirectory;
  now(): number;
  advance(ms: number): void;
  /** Adds an entry for machine type "m", operation `operation` (default "op"), and wakes the runner, as the API does. */
  add(address: string, operation?: string): Promise<RepairEntry>;
  /** Marks an entry for deletion and (unless `wake` is false) wakes the runner, as deleteRepairEntry does. */
  requestDelete(index: number, wake?: boolean): Promise<void>;
  /** Wakes the runner and waits for a pass that started after now to finish. */
  pass(): Promise<void>;
  /** Every history record of every entry added through `add`, ordered by sequence. */
  history(): Promise<RepairHistoryRecord[]>;
  dispose(): Promise<void>;
}

/**
 * The real RepairRunner on the real SQLite store, with a fake command runner (health checks answer at once from
 * `healthy`, any other command as `respond` says: held by default), an in-memory node operator, a fixed clock the
 * test advances, and random fixed at 0. The safety tick is an hour, so passes run only when woken.
 */
export async function startRunnerHarness(
  repair: RepairConfig,
  respond: Responder = () => "hold",
  options: { readonly path?: string } = {},
): Promise<RunnerHarness> {
  // On a given file (a restart), the caller owns it: dispose leaves it.
  const dir = options.path === undefined ? tempDir("kintsugi-runner-") : null;
  const path = options.path ?? join((dir as ReturnType<typeof tempDir>).path, "kintsugi.db");
  const store = await openSqliteStore({ path });
  const { entries, settings } = store;
  const healthy = new Set<string>();
  const healthHeld = new Set<string>();
  const health = (address: string) => (healthHeld.has(address) ? "hold" : ok(healthy.has(address) ? "true\n" : "false\n"));
  const commands = new FakeCommandRunner((argv) => (argv[0] === "health" ? health(argv[1] ?? "") : respond(argv)));
  const nodes = new FakeNodeOperator();
  const published: RepairChange[] = [];
  store.onCommit((commit) => void published.push(...commit.entries));
  // Pacing reads these only when `repair.pacing` is set; seeded and fed as the leader term does.
  const pacingLedger = seededLedger(store);
  const pacingRacks = new RackDirectory();
  const bmcs = new BmcDirectory();
  store.onCommit((commit) => pacingLedger.record(commit));
  const added: number[] = [];
  const logs: RunnerHarness["logs"] = [];
  let clock = NOW;
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, fields });
  const runner = new RepairRunner({
    entries,
    settings,
    repair,
    commands,
    nodes,
    now: () => clock,
    random: () => 0,
    log: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
    intervalMs: 3_600_000,
    // The tick as configured by default: a test that moves the clock 10 s on sees every entry checked again.
    healthVerdictMs: 10_000,
    healthCheckConcurrency: 4,
    generatedControlPlanes: () => [],
    pacing: { ledger: pacingLedger, racks: pacingRacks },
    bmcs,
  });
  const waitForPass = async () => {
    const before = runner.passCount;
    runner.wake();
    await until(`pass ${before + 1} finishes`, () => runner.passCount > before);
  };
  return {
    runner,
    path,
    store,
    entries,
    settings,
    commands,
    nodes,
    healthy,
    healthHeld,
    published,
    logs,
    pacingRacks,
    bmcs,
    now: () => clock,
    advance: (ms) => void (clock += ms),
    async add(address, operation = "op") {
      const change = await entries.add(
        createRepairEntry({ address, machineType: "m", operation, serial: null, source: "test" }, clock),
        "added by the test",
        clock,
        "test",
      );
      added.push(change.entry.index);
      runner.wake();
      return change.entry;
    },
    async requestDelete(index, wake = true) {
      await entries.requestDelete((e) => e.index === index, "deleted by the test", clock, "test");
      if (wake) runner.wake();
    },
    async pass() {
      // Two rounds: when a pass was already running at the first wake, the second ends one that started after it.
      await waitForPass();
      await waitForPass();
    },
    history: async () => (await Promise.all(added.map((index) => entries.history(index)))).flat().sort((a, b) => a.sequence - b.sequence),
    async dispose() {
      await runner.stop();
      await store.close();
      dir?.remove();
    },
  };
}

/**
 * Starts the runner on an entry for `address` (its node already added, its operation one drained step), and once its
 * repair command runs, deletes the entry with the node's uncordon held on its way to Kubernetes: the call is reached
 * when this resolves, and the test releases it.
 */
export async function deletedWhileUncordonHeld(h: RunnerHarness, address: string): Promise<{ entry: RepairEntry; uncordon: HeldCall }> {
  const entry = await h.add(address);
  h.runner.start();
  await h.commands.held("repair", address);
  const uncordon = h.nodes.holdNext("uncordon");
  await h.requestDelete(entry.index);
  await uncordon.reached;
  return { entry, uncordon };
}

/** Runs `scenario` against `harness`, then checks that no pass or job logged an error; always disposes of it. */
export async function withHarness(opening: RunnerHarness | Promise<RunnerHarness>, scenario: (h: RunnerHarness) => Promise<void>): Promise<void> {
  const harness = await opening;
  try {
    await scenario(harness);
    assert.deepEqual(
      harness.logs.filter((l) => l.level === "error"),
      [],
      "no pass or job failed unexpectedly",
    );
  } finally {
    await harness.dispose();
  }
}
