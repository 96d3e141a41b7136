import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { startFakeKubeApi } from "./fake-kube-api.js";
import { startFakeSabakan } from "./fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "./kintsugi-server.js";
import { SimulatedMachines } from "./machine-script.js";
import { operationOf, stepOf } from "./repair-world.js";
import { KINTSUGI_BIN } from "./run-cli.js";
import { tempDir } from "./temp-dir.js";
import { until as untilAny } from "./until.js";

// The alert bridge's tests: the real `kintsugi alerts` binary, a real kintsugi with its runner, a test Kubernetes
// API and a test sabakan, and a local chat webhook that records what is posted.

/** A message as the JSON format posts it. */
export interface Posted {
  source: string;
  kind: string;
  severity: string;
  title: string;
  text: string;
  fields: Record<string, string>;
}

/** The house {@link untilAny} until `probe` gives a value (not undefined nor false); fails naming `what`, with `diagnose()`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  diagnose: () => string,
  timeoutMs = 30_000,
): Promise<T> {
  return (await untilAny(what, probe, (value) => value !== undefined && value !== false, timeoutMs, diagnose)) as T;
}

/** A local chat webhook on 127.0.0.1: records every POST body, and answers 500 to the first `failFirst`. */
export async function startReceiver(failFirst = 0) {
  const attempts: string[] = [];
  const messages: Posted[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      attempts.push(body);
      if (attempts.length <= failFirst) return void res.writeHead(500).end("try later");
      messages.push(JSON.parse(body) as Posted);
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { hook, attempts, messages, titles: () => messages.map((m) => m.title), close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * The real `kintsugi alerts` as a child process; resolves once it is subscribed. Without grouping (each alert at
 * once) unless `extra` sets `--group-window-seconds` (the last one given wins).
 */
export async function startBridge(server: string, hook: string, extra: string[] = []) {
  const args = [KINTSUGI_BIN, "--server", server, "alerts", "--webhook", hook, "--format", "json", "--group-window-seconds", "0", ...extra];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const bridge = {
    stderr: () => stderr,
    async stop(): Promise<number | null> {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  await until(
    "the bridge to connect",
    () => stderr.includes("connected to"),
    () => stderr,
  );
  return bridge;
}
export type Bridge = Awaited<ReturnType<typeof startBridge>>;

/** kintsugi with its runner, a test Kubernetes API, a test sabakan and scripted machines of type "m". */
export async function startWorld() {
  const dir = tempDir("kintsugi-alerts-");
  const machines = new SimulatedMachines(dir.path);
  const kube = await startFakeKubeApi();
  const sabakan = await startFakeSabakan();
  const databasePath = join(dir.path, "kintsugi.db");
  const repairOperations = [
    operationOf(machines, [stepOf(machines, "fix", { needDrain: true })], { operation: "drain-fix" }),
    operationOf(machines, [stepOf(machines, "fix")], { operation: "fix" }),
    operationOf(machines, [stepOf(machines, "fail")], { operation: "fail" }),
  ];
  const start = (port: number) =>
    startTestKintsugi(
      {
        listen: { host: "127.0.0.1", port },
        repair: { ...EMPTY_REPAIR_CONFIG, maxConcurrentRepairs: 3, repairProcedures: [{ machineTypes: ["m"], repairOperations }] },
        kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 10 },
        sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 20 },
        runner: { intervalSeconds: 0.1, healthCheckConcurrency: 8 },
      },
      { startRunner: true, startSchedule: false, random: () => 0, databasePath },
    );
  let k: TestKintsugi = await start(0);
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const res = await k.gql(query, variables);
    if (!res.data) throw new Error(`${query}: ${JSON.stringify(res.errors)}`);
    return res.data;
  };
  return {
    kube,
    sabakan,
    get k() {
      return k;
    },
    gql,
    add: async (operation: string, address: string) =>
      (
        await gql(`mutation($o: String!, $a: IPAddress!) { addRepairEntry(operation: $o, machineType: "m", address: $a) { index } }`, {
          o: operation,
          a: address,
        })
      )["addRepairEntry"].index as string,
    status: async (index: string) => (await gql(`query($i: ID!) { repairEntry(index: $i) { status } }`, { i: index }))["repairEntry"].status as string,
    /** Stops kintsugi and starts it again on the same port and database. */
    async restart() {
      await k.close();
      k = await start(k.port);
    },
    async dispose() {
      await k.close();
      await kube.close();
      await sabakan.close();
      dir.remove();
    },
  };
}
export type World = Awaited<ReturnType<typeof startWorld>>;

/** Runs `scenario` with a world, a receiver and a bridge, closing all three whatever happens; SIGTERM must exit 0. */
export async function withBridge(
  options: { failFirst?: number; args?: string[] },
  scenario: (w: World, r: Receiver, b: Bridge) => Promise<void>,
): Promise<void> {
  const world = await startWorld();
  const receiver = await startReceiver(options.failFirst);
  let bridge: Bridge | undefined;
  try {
    bridge = await startBridge(world.k.url, receiver.hook, options.args);
    await scenario(world, receiver, bridge);
    assert.equal(await bridge.stop(), 0, `SIGTERM stops it cleanly\n${bridge.stderr()}`);
  } finally {
    await bridge?.stop();
    await receiver.close();
    await world.dispose();
  }
}
