import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { replicaHealthIfUp, untilOneLeads } from "../support/etcd-replicas.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { PacedWorld, type WorldStage } from "../support/paced-world.js";
import { graphqlData as gql, serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { until } from "../support/until.js";

interface Entry {
  index: string;
  address: string;
  status: string;
  history: Array<{ kind: string; time: string; actor: string }>;
}

const NAMES = ["replica-a", "replica-b", "replica-c"] as const;
const ADDRESSES = ["10.9.1.1", "10.9.1.2", "10.9.1.3", "10.9.1.4", "10.9.1.5", "10.9.1.6"];
const nodeOf = (address: string) => `node-${address.split(".").at(-1)}`;
const ANNOTATION = "kintsugi.cybozu.io/cordoned-by";
const LEASE_TTL_SECONDS = 2;
/** How long the world holds each stage of a repair (drain, command, watch): time enough to kill a leader in it. */
const STAGE_MS = 900;
/**
 * The repair command's timeout: a successor waits it out, with the margin, after a kill in the command or the watch.
 * The command takes STAGE_MS, or, when the successor starts it just before the world's pause, as long as the killed
 * replica's restart takes besides (a few seconds on a loaded machine).
 */
const COMMAND_TIMEOUT_SECONDS = 7;

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe("failover: SIGKILL the leader of three replicas on a three-member etcd", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let kube: FakeKubeApi;
  let dir: ReturnType<typeof tempDir>;
  let machines: SimulatedMachines;
  let world: PacedWorld | undefined;
  const processes = new Map<string, ServeProcess>();
  const urls = new Map<string, string>();

  const start = async (name: string) => {
    const server = serveProcess(["--config", `${name}.yaml`], dir.path);
    processes.set(name, server);
    urls.set(name, await server.url);
  };

  before(async () => {
    etcd = await startTestEtcd({ members: 3 });
    kube = await startFakeKubeApi();
    dir = tempDir("kintsugi-failover-");
    machines = new SimulatedMachines(dir.path);
    const argv = (a: string[]) => `[${a.map((x) => JSON.stringify(x)).join(", ")}]`;
    for (const name of NAMES) {
      writeFileSync(
        join(dir.path, `${name}.yaml`),
        `listen: "127.0.0.1:0"
store: etcd
etcd:
  endpoints: ${argv([...etcd.endpoints])}
  prefix: "/failover-e2e/"
leader_election:
  lease_ttl_seconds: ${LEASE_TTL_SECONDS}
  replica_name: ${name}
kubernetes:
  kubeconfig: ${JSON.stringify(kube.kubeconfigPath)}
runner:
  interval_seconds: 0.1
  inherited_command_margin_seconds: 6
repair:
  max_concurrent_repairs: 1
  repair_procedures:
    - machine_types: [m]
      repair_operations:
        - operation: op
          repair_steps:
            - repair_command: ${argv(machines.command("held-reboot"))}
              need_drain: true
              command_timeout_seconds: ${COMMAND_TIMEOUT_SECONDS}
              watch_seconds: 120
          health_check_command: ${argv(machines.command("health"))}
`,
      );
    }
    for (const address of ADDRESSES) {
      kube.addNode({ name: nodeOf(address), internalIP: address });
      kube.addPod({ namespace: "app", name: `web-${nodeOf(address)}`, nodeName: nodeOf(address), controllerKind: "ReplicaSet" });
    }
    await Promise.all(NAMES.map(start));
  });

  after(async () => {
    world?.stop();
    for (const server of processes.values()) {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    }
    await Promise.all([...processes.values()].map((s) => s.exited));
    await kube?.close();
    await etcd?.stop();
    dir?.remove();
  });

  const leader = async (): Promise<string> => {
    const { healths, leaderAt } = await untilOneLeads(
      NAMES.map((n) => urls.get(n) as string),
      30_000,
    );
    return healths[leaderAt]?.replica as string;
  };

  const entries = async (name: string): Promise<Entry[]> =>
    (await gql<{ searchRepairEntries: Entry[] }>(urls.get(name) as string, `{ searchRepairEntries { index address status history { kind time actor } } }`))
      .searchRepairEntries;

  it("another replica takes over each time, and every entry finishes once, with no command run twice and no node left cordoned", async () => {
    const first = await leader();
    const paced = new PacedWorld(kube, machines, ADDRESSES, nodeOf, STAGE_MS);
    world = paced;
    const follower = NAMES.find((n) => n !== first) as string;
    for (const address of ADDRESSES) {
      await gql(urls.get(follower) as string, `mutation($a: IPAddress!) { addRepairEntry(operation: "op", machineType: "m", address: $a) { index } }`, {
        a: address,
      });
    }

    const stages = shuffled<WorldStage>(["draining", "commanding", "watching"]);
    for (const stage of stages) {
      const victim = await leader();
      const inStage = await until(
        `a repair is ${stage}`,
        () => paced.in(stage),
        (as) => as.length > 0,
        30_000,
      ).catch(async (err: Error) => {
        const statuses = (await entries(victim)).map((e) => `${e.index}:${e.status}`).join(" ");
        throw new Error(`${err.message}; the workload ran out before every stage had its kill (entries ${statuses})`);
      });
      const server = processes.get(victim) as ServeProcess;
      const killedAt = Date.now();
      server.child.kill("SIGKILL");
      assert.equal(await server.exited, null, "killed, not exited");
      const survivors = NAMES.filter((n) => n !== victim);
      const successor = await until(
        "a surviving replica leads",
        () => Promise.all(survivors.map((n) => replicaHealthIfUp(urls.get(n) as string))),
        (hs) => hs.some((h) => h?.leader),
        30_000,
      );
      const takeoverMs = Date.now() - killedAt;
      const successorName = successor.find((h) => h?.leader)?.replica as string;
      const firstTransition = await until(
        "the new leader records its first transition",
        async () =>
          (await entries(successorName))
            .flatMap((e) => e.history)
            .filter((h) => h.actor === "kintsugi" && Date.parse(h.time) > killedAt)
            .map((h) => Date.parse(h.time)),
        (times) => times.length > 0,
        30_000,
      );
      const transitionMs = Math.min(...firstTransition) - killedAt;
      console.log(
        `killed leader ${victim} while ${stage} (${inStage.join(", ")}): ${successorName} led after ${takeoverMs} ms, its first transition came ${transitionMs} ms after the kill (lease TTL ${LEASE_TTL_SECONDS} s)`,
      );
      assert.ok(takeoverMs < LEASE_TTL_SECONDS * 1000 + 10_000, `took over within the TTL plus slack (${takeoverMs} ms)`);
      // The workload waits while the victim restarts, so that each kill leaves work for the next.
      paced.pause();
      await start(victim);
      assert.notEqual(await leader(), victim, "the restarted replica follows");
      paced.resume();
    }

    const final = await until(
      "every entry is finished",
      () => entries(NAMES[0]),
      (es) => es.length === ADDRESSES.length && es.every((e) => e.status === "SUCCEEDED" || e.status === "FAILED"),
      60_000,
    );
    assert.deepEqual(
      final.map((e) => e.index),
      ["1", "2", "3", "4", "5", "6"],
      "no entry lost or duplicated",
    );
    assert.deepEqual(
      final.map((e) => e.address),
      ADDRESSES,
    );
    assert.deepEqual(
      final.map((e) => e.status),
      ADDRESSES.map(() => "SUCCEEDED"),
      JSON.stringify(final.map((e) => e.history)),
    );
    for (const e of final) assert.equal(e.history.filter((h) => h.kind === "CREATED").length, 1, `entry ${e.index} created once`);
    for (const address of ADDRESSES) assert.equal(machines.runs("held-reboot", address), 1, `the repair command of ${address} ran once`);
    const cordoned = () =>
      ADDRESSES.map(nodeOf).filter(
        (n) => kube.node(n)?.["spec"]?.unschedulable === true || kube.node(n)?.["metadata"]?.annotations?.[ANNOTATION] !== undefined,
      );
    await until("no node is left cordoned by kintsugi", cordoned, (ns) => ns.length === 0, 20_000);
  });
});
