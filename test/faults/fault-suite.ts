import { seededRandom } from "../support/seeded-random.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";
import { FaultyMachines, commandRuns } from "./command-log.js";
import { KEEPALIVE_TIME_MS } from "../../src/adapters/etcd-client.js";
import { checkRun, type HealthSample, type OutageWindow, type Recovery, type Violation } from "./fault-checker.js";
import { FaultCluster, INHERITED_MARGIN_SECONDS, REPAIR, REPLICAS, etcdNode } from "./fault-cluster.js";
import { startFaultNetwork } from "./fault-network.js";
import { LEADER_SPARED_KINDS, OUTAGE_KINDS, PARTITION_KINDS, planFaults, triggerOf, type FaultKind, type PlannedFault } from "./fault-plan.js";
import { faultLine, figuresOf, leaderCommands, reportLines, type InjectedFault } from "./fault-report.js";
import { ReplicaClient, Workload } from "./fault-workload.js";

export interface FaultSuiteOptions {
  readonly seed: number;
  readonly rounds: number;
  readonly etcdMembers: 1 | 3;
  readonly kinds: readonly FaultKind[];
  /** Prints a line of the run's story. */
  readonly print: (line: string) => void;
}

export interface FaultSuiteResult {
  readonly violations: Violation[];
  /** The seed and how to replay it, the faults, the figures and every violation: what a failure must show. */
  readonly summary: string;
}

const LEASE_TTL_SECONDS = 2;
/** How long after etcd went away every replica must say so on /health: its lease TTL, etcd's 2 s timeout, 1 s slack. */
const OUTAGE_GRACE_MS = LEASE_TTL_SECONDS * 1000 + 2000 + 1000;
/**
 * How soon after an etcd member is cut off a leader must start a command, and how far apart at most while it is: the
 * lease TTL (a leader that lost its lease is replaced), gRPC's keep-alive ping interval and etcd's 2 s timeout (a
 * watch on the member cut off is dropped and moves to another), and 2 s of slack.
 */
const LIVENESS_BOUND_MS = LEASE_TTL_SECONDS * 1000 + KEEPALIVE_TIME_MS + 2000 + 2000;
/**
 * How soon after a fault of the leader a new leader must start a command: the lease TTL, then the wait for a command
 * the old leader started (its timeout and the margin, from its start, which the fault may follow by 0.2 s), and 2 s.
 */
const FAILOVER_BOUND_MS = (LEASE_TTL_SECONDS + Math.max(...REPAIR.steps.map((s) => s.timeoutSeconds)) + INHERITED_MARGIN_SECONDS) * 1000 + 2000;
/** Bounds of waits that only a broken run reaches; each says what it waited for. */
const TRIGGER_MS = 60_000;
const RECOVERY_MS = 60_000;
const DRAIN_MS = 120_000;

/**
 * Runs the fault suite: three replicas on a real etcd (in network namespaces where it may), machines kept under
 * repair, `rounds` faults drawn from the seed, then every entry left to end and the checker run over the command log,
 * the stored histories, the leadership events and /health during outages.
 */
export async function runFaultSuite(options: FaultSuiteOptions): Promise<FaultSuiteResult> {
  const { print, seed } = options;
  const dir = tempDir("kintsugi-faults-");
  const removeDir = () => dir.remove();
  process.on("exit", removeDir);
  const machines = new FaultyMachines(dir.path);
  const nodes = [...REPLICAS, ...Array.from({ length: options.etcdMembers }, (_, i) => etcdNode(i))];
  const network = await startFaultNetwork(nodes);
  const kinds = network.partitionsSkipped === null ? options.kinds : options.kinds.filter((k) => !PARTITION_KINDS.has(k));
  if (network.partitionsSkipped !== null) print(`SKIPPING the partition faults: ${network.partitionsSkipped}; running ${kinds.join(", ")} on 127.0.0.1`);
  // The plan is drawn over the kinds that run here: the replay names them.
  const replay = `KINTSUGI_FAULT_SEED=${seed} npm run test:faults -- --rounds ${options.rounds} --etcd-members ${options.etcdMembers} --kinds ${kinds.join(",")}`;
  print(`fault suite: seed ${seed} (replay: ${replay})`);
  let cluster: FaultCluster | null = null;
  let workload: Workload | null = null;
  try {
    cluster = await FaultCluster.start({ etcdMembers: options.etcdMembers, network, dir: dir.path, machines, leaseTtlSeconds: LEASE_TTL_SECONDS });
    const client = new ReplicaClient(cluster);
    // Its own stream of the seed: the plan stays the same whatever the workload draws.
    workload = new Workload(client, machines, seededRandom(seed ^ 0x5eed));
    await cluster.settled();
    workload.start();
    const faults: InjectedFault[] = [];
    const health: HealthSample[] = [];
    const outages: OutageWindow[] = [];
    // The faults after which etcd kept its quorum: a leader must act soon, and keep acting while a member is cut off.
    const judged: InjectedFault[] = [];
    for (const drawn of planFaults(seed, options.rounds, kinds, LEASE_TTL_SECONDS * 1000)) {
      // An outage outlasts the grace, so that /health is checked in it; a member stays cut off past the liveness
      // bound, so that the leader's command is judged while it is (not once it is back).
      const extra = OUTAGE_KINDS.has(drawn.kind) ? OUTAGE_GRACE_MS : LEADER_SPARED_KINDS.has(drawn.kind) ? LIVENESS_BOUND_MS : 0;
      const planned = { ...drawn, holdMs: drawn.holdMs + extra };
      const fault = await strike(cluster, machines, planned, health);
      faults.push(fault);
      if (OUTAGE_KINDS.has(fault.kind)) outages.push({ from: fault.at, to: fault.healedAt });
      const figures = await until(
        `round ${fault.round}: a replica elected after the ${fault.kind} starts a command`,
        () => figuresOf(fault, cluster!.leadership(), machines.runs()),
        (f) => f.firstCommand !== null,
        RECOVERY_MS,
      );
      print(faultLine(fault, figures));
      if (!OUTAGE_KINDS.has(fault.kind)) judged.push(fault);
    }
    await workload.stop();
    await until(
      "every entry ends",
      () => client.data<{ searchRepairEntries: Array<{ index: string; status: string }> }>(`{ searchRepairEntries { index status } }`),
      (d) => d.searchRepairEntries.every((e) => e.status === "SUCCEEDED" || e.status === "FAILED"),
      DRAIN_MS,
    ).catch((err: Error) => print(`the checker reports what did not end: ${err.message}`));
    const quiet = () => machines.runs().filter((r) => r.ended === null && Date.now() - r.lastSeen < 3000);
    await until("no command runs any more", quiet, (rs) => rs.length === 0, DRAIN_MS);
    const { lines: logLines, unreadable } = machines.log();
    const runs = commandRuns(logLines);
    const entries = await client.entries();
    const leadership = cluster.leadership();
    const recoveries = judged.map((fault): Recovery => {
      const next = faults.find((f) => f.at > fault.at)?.at;
      return {
        what: `${fault.kind} of ${fault.target}`,
        from: fault.at,
        to: LEADER_SPARED_KINDS.has(fault.kind) ? fault.healedAt : fault.at,
        starts: leaderCommands(fault, leadership, runs, next).map((r) => r.start),
        boundMs: LEADER_SPARED_KINDS.has(fault.kind) ? LIVENESS_BOUND_MS : FAILOVER_BOUND_MS,
        elections: leadership.filter((e) => e.time > fault.at && e.time < (next ?? Infinity)).map((e) => e.time),
        // A leader that lost its lease while a member was cut off (a keep-alive late on a loaded machine) is replaced
        // a TTL later, and its successor waits out the commands it started; the watch may still have to move.
        electedBoundMs: LEADER_SPARED_KINDS.has(fault.kind) ? FAILOVER_BOUND_MS + LIVENESS_BOUND_MS - LEASE_TTL_SECONDS * 1000 : FAILOVER_BOUND_MS,
      };
    });
    const result = checkRun({
      runs,
      entries,
      leadership,
      health,
      outages,
      outageGraceMs: OUTAGE_GRACE_MS,
      unreadableLines: unreadable,
      recoveries,
    });
    const lines = [
      `fault suite: seed ${seed}, ${options.rounds} rounds on a ${options.etcdMembers}-member etcd${network.partitionsSkipped === null ? " in network namespaces" : " on 127.0.0.1"}, ${entries.length} entries`,
      ...reportLines({
        faults,
        leadership,
        runs,
        violations: result.violations,
        attributed: result.attributed,
        unattributed: result.unattributed,
        outageAnswers: result.outageAnswers,
      }),
      ...((await client.hasReplicaField())
        ? []
        : ["  (the API has no `replica` on history records: only attempt notes and command outcomes are attributed, through the command log)"]),
      ...result.violations.map((v) => `  VIOLATION ${v.check}: ${v.message}`),
      ...(result.violations.length > 0 ? [`replay: ${replay}`] : []),
    ];
    for (const line of lines) print(line);
    return { violations: result.violations, summary: lines.join("\n") };
  } catch (err) {
    print(`fault suite: seed ${seed} failed (replay: ${replay})`);
    throw err;
  } finally {
    await workload?.stop();
    if (process.env["KINTSUGI_FAULT_KEEP"]) cluster?.saveLogs();
    await cluster?.stop();
    await network.remove();
    process.off("exit", removeDir);
    if (process.env["KINTSUGI_FAULT_KEEP"]) print(`kept the command log and the replicas' configs and logs in ${dir.path}`);
    else dir.remove();
  }
}

/** Waits for the fault's moment, strikes, holds it (sampling /health in an etcd outage), heals; returns what happened. */
async function strike(cluster: FaultCluster, machines: FaultyMachines, planned: PlannedFault, health: HealthSample[]): Promise<InjectedFault> {
  let leader = await cluster.settled();
  const since = Date.now();
  let lookedAt = since;
  await until(
    `round ${planned.round}: the moment for ${planned.kind} (a step-1 command of the leader ${triggerOf(planned.kind) === "during" ? `running for ${planned.offsetMs} ms` : "just ended"})`,
    async () => {
      const now = Date.now();
      const mine = machines.runs().filter((r) => r.replica === leader && r.step === 1);
      if (triggerOf(planned.kind) === "before" && mine.some((r) => r.ended === "end" && r.lastSeen >= since)) return true;
      // Alive: a tick within the last 1.5 s (a command killed with an earlier process of this replica has none).
      const running = mine.filter((r) => r.ended === null && now - r.lastSeen < 1500);
      if (triggerOf(planned.kind) === "during" && running.some((r) => now >= r.start + planned.offsetMs)) return true;
      // A leader that changed meanwhile (a lease lost on a slow machine) is followed, looked up once a second.
      if (running.length === 0 && now - lookedAt >= 1000) {
        lookedAt = now;
        leader = (await cluster.healths()).find((h) => h?.leader)?.replica ?? leader;
      }
      return false;
    },
    Boolean,
    TRIGGER_MS,
  );
  const etcdTargets = cluster.etcd.members.map((_, i) => i);
  const target = planned.kind === "cut-member" ? etcdNode(planned.member) : planned.kind.endsWith("-etcd") ? "etcd" : leader;
  const at = Date.now();
  switch (planned.kind) {
    case "kill-during":
    case "kill-before":
      cluster.signal(leader, "SIGKILL");
      break;
    case "stop-during":
    case "stop-before":
      cluster.signal(leader, "SIGSTOP");
      break;
    case "partition-leader":
      await cluster.network.cut(leader);
      break;
    case "partition-etcd":
      for (const i of etcdTargets) await cluster.network.cut(etcdNode(i));
      break;
    case "pause-etcd":
      for (const i of etcdTargets) cluster.etcd.members[i]?.pause();
      break;
    case "cut-member":
      await cluster.network.cut(etcdNode(planned.member));
      break;
  }
  // The fault lasts holdMs: its length is the input here, not a wait for something to happen.
  const end = at + planned.holdMs;
  while (Date.now() < end) {
    const tick = new Promise((resolve) => setTimeout(resolve, Math.min(500, Math.max(0, end - Date.now()))));
    if (OUTAGE_KINDS.has(planned.kind)) {
      const answers = await cluster.healths();
      answers.forEach((h, i) => {
        if (h) health.push({ replica: REPLICAS[i] as string, time: Date.now(), code: h.code, leader: h.leader, leaderName: h.leaderName });
      });
    }
    await tick;
  }
  switch (planned.kind) {
    case "kill-during":
    case "kill-before":
      await cluster.process(leader).exited;
      await cluster.startReplica(leader);
      break;
    case "stop-during":
    case "stop-before":
      cluster.signal(leader, "SIGCONT");
      break;
    case "partition-leader":
      await cluster.network.heal(leader);
      break;
    case "partition-etcd":
      for (const i of etcdTargets) await cluster.network.heal(etcdNode(i));
      break;
    case "pause-etcd":
      for (const i of etcdTargets) cluster.etcd.members[i]?.resume();
      break;
    case "cut-member":
      await cluster.network.heal(etcdNode(planned.member));
      break;
  }
  return { round: planned.round, kind: planned.kind, target, at, healedAt: Date.now() };
}
