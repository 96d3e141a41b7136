import { join } from "node:path";
import { EMPTY_REPAIR_CONFIG, type RepairConfig, type RepairStepConfig } from "../../src/domain/repair-config.js";
import { createRepairEntry, type RepairEntry } from "../../src/domain/repair-entry.js";
import type { RepairHistoryRecord } from "../../src/domain/repair-history.js";
import { RepairRunner } from "../../src/runner/repair-runner.js";
import { openDatabase, type Db } from "../../src/store/database.js";
import { RepairEntryStore, type RepairChange } from "../../src/store/repair-entry-store.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { FakeCommandRunner, ok, type Responder } from "./fake-command-runner.js";
import { FakeNodeOperator } from "./fake-node-operator.js";
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
export const harnessRepair = (steps: RepairStepConfig[] = [harnessStep()], over: Partial<RepairConfig> = {}, successCommand: string[] | null = null): RepairConfig => ({
  ...EMPTY_REPAIR_CONFIG,
  maxConcurrentRepairs: 10,
  repairProcedures: [{ machineTypes: ["m"], repairOperations: [{ operation: "op", repairSteps: steps, healthCheckCommand: ["health"], commandTimeoutSeconds: 30, successCommand, successCommandTimeout: 30 }] }],
  ...over,
});

export interface RunnerHarness {
  readonly runner: RepairRunner;
  readonly entries: RepairEntryStore;
  readonly settings: SettingsStore;
  readonly commands: FakeCommandRunner;
  readonly nodes: FakeNodeOperator;
  /** Addresses whose health check answers "true"; every other answers "false". */
  readonly healthy: Set<string>;
  /** Addresses whose health check is held until the test finishes it (see `commands.held("health", address)`). */
  readonly healthHeld: Set<string>;
  /** Every change the runner published through `committed`, in order. */
  readonly published: RepairChange[];
  /** The history sequence numbers of changes the test made itself, as the API would (adds, delete requests). */
  readonly madeByTest: Set<number>;
  readonly logs: Array<{ level: string; message: string; fields: Record<string, unknown> | undefined }>;
  now(): number;
  advance(ms: number): void;
  /** Adds an entry for machine type "m", operation `operation` (default "op"), and wakes the runner, as the API does. */
  add(address: string, operation?: string): RepairEntry;
  /** Marks an entry for deletion and (unless `wake` is false) wakes the runner, as deleteRepairEntry does. */
  requestDelete(index: number, wake?: boolean): void;
  /** Wakes the runner and waits for a pass that started after now to finish. */
  pass(): Promise<void>;
  /** Every history record of every entry, ordered by sequence. */
  history(): RepairHistoryRecord[];
  dispose(): Promise<void>;
}

/**
 * The real RepairRunner on a real SQLite file, with a fake command runner (health checks answer at once from
 * `healthy`, any other command as `respond` says: held by default), an in-memory node operator, a fixed clock the
 * test advances, and random fixed at 0. The safety tick is an hour, so passes run only when woken.
 */
export function startRunnerHarness(repair: RepairConfig, respond: Responder = () => "hold"): RunnerHarness {
  const dir = tempDir("kintsugi-runner-");
  const db: Db = openDatabase(join(dir.path, "kintsugi.db"));
  const entries = new RepairEntryStore(db);
  const settings = new SettingsStore(db);
  const healthy = new Set<string>();
  const healthHeld = new Set<string>();
  const health = (address: string) => (healthHeld.has(address) ? "hold" : ok(healthy.has(address) ? "true\n" : "false\n"));
  const commands = new FakeCommandRunner((argv) => (argv[0] === "health" ? health(argv[1] ?? "") : respond(argv)));
  const nodes = new FakeNodeOperator();
  const published: RepairChange[] = [];
  const madeByTest = new Set<number>();
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
    log: { info: log("info"), warn: log("warn"), error: log("error") },
    committed: (changes) => void published.push(...changes),
    intervalMs: 3_600_000,
    healthCheckConcurrency: 4,
    generatedControlPlanes: () => [],
  });
  const waitForPass = async () => {
    const before = runner.passCount;
    runner.wake();
    await until(`pass ${before + 1} finishes`, () => runner.passCount > before);
  };
  return {
    runner,
    entries,
    settings,
    commands,
    nodes,
    healthy,
    healthHeld,
    published,
    madeByTest,
    logs,
    now: () => clock,
    advance: (ms) => void (clock += ms),
    add(address, operation = "op") {
      const change = entries.add(createRepairEntry({ address, machineType: "m", operation, serial: null, source: "test" }, clock), "added by the test", clock, "test");
      madeByTest.add(change.record.sequence);
      added.push(change.entry.index);
      runner.wake();
      return change.entry;
    },
    requestDelete(index, wake = true) {
      for (const change of entries.requestDelete((e) => e.index === index, "deleted by the test", clock, "test")) madeByTest.add(change.record.sequence);
      if (wake) runner.wake();
    },
    async pass() {
      // Two rounds: when a pass was already running at the first wake, the second ends one that started after it.
      await waitForPass();
      await waitForPass();
    },
    history: () => added.flatMap((index) => entries.history(index)).sort((a, b) => a.sequence - b.sequence),
    async dispose() {
      await runner.stop();
      db.close();
      dir.remove();
    },
  };
}
