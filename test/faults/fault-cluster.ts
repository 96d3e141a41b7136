import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { replicaHealthIfUp, type ReplicaHealth } from "../support/etcd-replicas.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { until } from "../support/until.js";
import type { FaultyMachines } from "./command-log.js";
import type { LeadershipEvent } from "./fault-checker.js";
import type { FaultNetwork } from "./fault-network.js";

export const REPLICAS = ["r0", "r1", "r2"] as const;
export const etcdNode = (member: number) => `etcd${member}`;

/** The repair the suite's machines get: a 4 s step that outlives its 3 s watch, then a 2 s step that fixes. */
export const REPAIR = {
  operation: "fault",
  machineType: "m",
  steps: [
    { action: "run", seconds: 4, watchSeconds: 3, timeoutSeconds: 5 },
    { action: "fix", seconds: 2, watchSeconds: 3, timeoutSeconds: 5 },
  ],
} as const;

/** How long past its timeout a successor waits out a command another replica started (the least kintsugi takes). */
export const INHERITED_MARGIN_SECONDS = 6;

const argv = (a: readonly string[]) => `[${a.map((x) => JSON.stringify(x)).join(", ")}]`;

function configOf(name: string, host: string, etcd: TestEtcd, machines: FaultyMachines, leaseTtlSeconds: number): string {
  const steps = REPAIR.steps
    .map(
      (s) => `            - repair_command: ${argv(machines.command(name, s.action, s.seconds))}
              watch_seconds: ${s.watchSeconds}
              command_timeout_seconds: ${s.timeoutSeconds}`,
    )
    .join("\n");
  return `listen: "${host}:0"
auth:
  anonymous: admin
store: etcd
etcd:
  endpoints: ${argv(etcd.endpoints)}
  prefix: "/faults/"
  timeout: "2s"
leader_election:
  lease_ttl_seconds: ${leaseTtlSeconds}
  replica_name: ${name}
runner:
  interval_seconds: 0.2
  # The least margin: the replicas share one host's clock.
  inherited_command_margin_seconds: ${INHERITED_MARGIN_SECONDS}
repair:
  max_concurrent_repairs: ${REPLICAS.length}
  repair_procedures:
    - machine_types: [${REPAIR.machineType}]
      repair_operations:
        - operation: ${REPAIR.operation}
          repair_steps:
${steps}
          health_check_command: ${argv(machines.command(name, "health"))}
`;
}

/**
 * Three `kintsugi serve` replicas on a real etcd of one or three members, each process where the network puts it.
 * Every process ever started is kept, so that the leadership events of killed ones are read at the end.
 */
export class FaultCluster {
  private readonly current = new Map<string, ServeProcess>();
  private readonly urls = new Map<string, string>();
  private readonly started: Array<{ name: string; process: ServeProcess }> = [];

  private constructor(
    readonly etcd: TestEtcd,
    readonly network: FaultNetwork,
    private readonly dir: string,
    readonly leaseTtlSeconds: number,
  ) {}

  /** Starts etcd and the three replicas; on a failed start, stops what it started. */
  static async start(options: {
    etcdMembers: 1 | 3;
    network: FaultNetwork;
    dir: string;
    machines: FaultyMachines;
    leaseTtlSeconds: number;
  }): Promise<FaultCluster> {
    const { network } = options;
    const etcd = await startTestEtcd({
      members: options.etcdMembers,
      placement: { hostOf: (i) => network.hostOf(etcdNode(i)), launcherOf: (i) => network.launcherOf(etcdNode(i)) },
    });
    const cluster = new FaultCluster(etcd, network, options.dir, options.leaseTtlSeconds);
    try {
      for (const name of REPLICAS)
        writeFileSync(join(options.dir, `${name}.yaml`), configOf(name, network.hostOf(name), etcd, options.machines, options.leaseTtlSeconds));
      await Promise.all(REPLICAS.map((name) => cluster.startReplica(name)));
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** Starts (or starts again) replica `name` and waits for its "kintsugi started" line. */
  async startReplica(name: string): Promise<void> {
    const server = serveProcess(["--config", `${name}.yaml`], this.dir, undefined, undefined, undefined, this.network.launcherOf(name));
    this.current.set(name, server);
    this.started.push({ name, process: server });
    this.urls.set(name, await server.url);
  }

  process(name: string): ServeProcess {
    const server = this.current.get(name);
    if (!server) throw new Error(`no replica ${name}`);
    return server;
  }

  /** Whether the process of replica `name` has ended (killed). */
  exited(name: string): boolean {
    const child = this.process(name).child;
    return child.exitCode !== null || child.signalCode !== null;
  }

  signal(name: string, signal: NodeJS.Signals): void {
    this.process(name).child.kill(signal);
  }

  url(name: string): string {
    return this.urls.get(name) as string;
  }

  /** Every replica's /health (null for one that does not answer within 2 s). */
  healths(): Promise<Array<ReplicaHealth | null>> {
    return Promise.all(REPLICAS.map((name) => (this.exited(name) ? null : replicaHealthIfUp(this.url(name)))));
  }

  /** Waits until every replica answers 200 and exactly one leads; returns its name. */
  async settled(timeoutMs = 60_000): Promise<string> {
    const healths = await until(
      "every replica answers /health 200 and exactly one leads",
      () => this.healths(),
      (hs) => hs.every((h) => h?.code === 200) && hs.filter((h) => h?.leader).length === 1,
      timeoutMs,
    );
    return healths.find((h) => h?.leader)?.replica as string;
  }

  /** "this replica is now the leader" of every process started, with the replica's name and its log's time. */
  leadership(): LeadershipEvent[] {
    return this.started
      .flatMap(({ name, process }) =>
        process.logRecords().flatMap((r) => (r.msg === "this replica is now the leader" ? [{ replica: name, time: Number(r["time"]) }] : [])),
      )
      .sort((a, b) => a.time - b.time);
  }

  /** Writes each process's log records and stderr to `<replica>-<n>.log` in the run's directory (to read after a run). */
  saveLogs(): void {
    this.started.forEach(({ name, process }, n) => {
      const lines = process.logRecords().map((r) => JSON.stringify(r));
      writeFileSync(join(this.dir, `${name}-${n}.log`), [...lines, process.stderr()].join("\n"));
    });
  }

  /** Ends every replica (SIGCONT first, for a stopped one) and etcd. */
  async stop(): Promise<void> {
    for (const { process } of this.started) {
      const child = process.child;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGCONT");
        child.kill("SIGKILL");
      }
    }
    await Promise.all(this.started.map(({ process }) => process.exited));
    for (let i = 0; i < this.etcd.members.length; i++) this.etcd.members[i]?.resume();
    await this.etcd.stop();
  }
}
