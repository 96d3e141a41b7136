import { pino, type Logger } from "pino";
import type { RepairConfig, RepairOperationConfig, RepairStepConfig } from "../../src/domain/queue/repair-config.js";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { startFakeKubeApi, type FakeKubeApi } from "./fake-kube-api.js";
import { startTestKintsugi, type TestKintsugi } from "./kintsugi-server.js";
import { SimulatedMachines } from "./machine-script.js";
import { tempDir } from "./temp-dir.js";
import { until } from "./until.js";

export const ENTRY_FIELDS = `index address nodename status step stepStatus deleted drainBackoffCount drainBackoffExpire
  lastTransitionTime waitReason waitingFor { kind until } history { kind reason detail status step stepStatus }`;

export interface WorldEntry {
  index: string;
  address: string;
  nodename: string;
  status: "QUEUED" | "PROCESSING" | "SUCCEEDED" | "FAILED";
  step: number;
  stepStatus: "WAITING" | "DRAINING" | "WATCHING";
  deleted: boolean;
  drainBackoffCount: number;
  drainBackoffExpire: string | null;
  lastTransitionTime: string;
  waitReason: string | null;
  waitingFor: { kind: string; until: string | null } | null;
  history: Array<{ kind: string; reason: string; detail: string | null; status: string; step: number; stepStatus: string }>;
}

/** A step of the simulated machines' script, with short defaults for tests. */
export const stepOf = (m: SimulatedMachines, action: string, over: Partial<RepairStepConfig> & { arg?: string | number } = {}): RepairStepConfig => {
  const { arg, ...rest } = over;
  return {
    repairCommand: m.command(action, arg),
    commandTimeoutSeconds: 10,
    commandRetries: 0,
    commandInterval: 0,
    needDrain: false,
    watchSeconds: 30,
    ...rest,
  };
};

/** An operation named "op" for machine type "m" whose health check asks the simulated machines. */
export const operationOf = (m: SimulatedMachines, steps: RepairStepConfig[], over: Partial<RepairOperationConfig> = {}): RepairOperationConfig => ({
  operation: "op",
  repairSteps: steps,
  healthCheckCommand: m.command("health"),
  commandTimeoutSeconds: 10,
  successCommand: null,
  successCommandTimeout: 10,
  ...over,
});

export interface RepairWorld {
  readonly k: TestKintsugi;
  readonly kube: FakeKubeApi;
  readonly machines: SimulatedMachines;
  add(address: string): Promise<string>;
  entry(index: string): Promise<WorldEntry>;
  /** Polls the entry over GraphQL until `done` holds; fails with the entry and its history after `timeoutMs`. */
  waitFor(index: string, done: (e: WorldEntry) => boolean, timeoutMs?: number): Promise<WorldEntry>;
  mutate(query: string): Promise<void>;
  dispose(): Promise<void>;
}

/** Options of {@link startRepairWorld}. */
export interface RepairWorldOptions {
  /** `kubernetes.timeout_seconds` (default 10). */
  readonly kubeTimeoutSeconds?: number;
  /** Default: silent, or the level in KINTSUGI_TEST_LOG. */
  readonly logger?: Logger;
}

/**
 * kintsugi with its runner, the real command runner running the simulated machines' script, and the real
 * Kubernetes client talking to the test API server. Passes every 100 ms; back-off jitter fixed at 0.
 */
export async function startRepairWorld(
  build: (m: SimulatedMachines) => Partial<RepairConfig> & { repairProcedures: RepairConfig["repairProcedures"] },
  options: RepairWorldOptions = {},
): Promise<RepairWorld> {
  const dir = tempDir("kintsugi-world-");
  const machines = new SimulatedMachines(dir.path);
  const kube = await startFakeKubeApi();
  const k = await startTestKintsugi(
    {
      repair: { ...EMPTY_REPAIR_CONFIG, ...build(machines) },
      kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: options.kubeTimeoutSeconds ?? 10 },
      runner: { intervalSeconds: 0.1, healthCheckConcurrency: 8 },
    },
    { startRunner: true, random: () => 0, logger: options.logger ?? pino({ level: process.env["KINTSUGI_TEST_LOG"] ?? "silent" }) },
  );
  const entry = async (index: string): Promise<WorldEntry> => {
    const res = await k.gql<{ repairEntry: WorldEntry }>(`query($i: ID!) { repairEntry(index: $i) { ${ENTRY_FIELDS} } }`, { i: index });
    if (!res.data) throw new Error(`repairEntry ${index}: ${JSON.stringify(res.errors)}`);
    return res.data.repairEntry;
  };
  return {
    k,
    kube,
    machines,
    async add(address) {
      const res = await k.gql(`mutation($a: IPAddress!) { addRepairEntry(operation: "op", machineType: "m", address: $a) { index } }`, { a: address });
      if (!res.data) throw new Error(`addRepairEntry: ${JSON.stringify(res.errors)}`);
      return res.data["addRepairEntry"].index as string;
    },
    entry,
    waitFor: (index, done, timeoutMs = 30_000) =>
      until(
        `entry ${index} reaches the expected state`,
        () => entry(index),
        done,
        timeoutMs,
        () => `script log:\n${machines.log().slice(-20).join("\n")}`,
      ),
    async mutate(query) {
      const res = await k.gql(query);
      if (res.errors) throw new Error(`${query}: ${JSON.stringify(res.errors)}`);
    },
    async dispose() {
      await k.dispose();
      await kube.close();
      dir.remove();
    },
  };
}
