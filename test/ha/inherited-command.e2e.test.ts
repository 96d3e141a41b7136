import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { commandDue, commandStarted, type CommandMarker } from "../../src/domain/queue/command-marker.js";
import { createRepairEntry } from "../../src/domain/queue/repair-entry.js";
import { openEtcdStore } from "../../src/store/kv/etcd/open-etcd-store.js";
import { testEtcdClient } from "../support/etcd-clients.js";
import { replicaHealthIfUp, startEtcdReplicas, untilOneLeads } from "../support/etcd-replicas.js";
import { operationOf, stepOf } from "../support/repair-world.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { until } from "../support/until.js";

const NAMES = ["replica-a", "replica-b"] as const;
const ADDRESS = "10.9.3.1";
const TIMEOUT_SECONDS = 5;
const MARGIN_SECONDS = 6;

interface Entry {
  readonly status: string;
  readonly waitReason: string | null;
  readonly history: ReadonlyArray<{
    readonly time: string;
    readonly kind: string;
    readonly reason: string;
    readonly actor: string;
    readonly replica: string | null;
  }>;
}

async function entryOn(url: string): Promise<Entry | undefined> {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: `{ searchRepairEntries { status waitReason history { time kind reason actor replica } } }` }),
  }).catch(() => null);
  if (res === null || !res.ok) return undefined;
  const body = (await res.json()) as { data?: { searchRepairEntries: Entry[] } };
  return body.data?.searchRepairEntries[0];
}

/**
 * Two real `kintsugi serve` on a real etcd: the leader is SIGKILLed while a step's repair command runs. The command
 * dies with it (its process group), and the successor, which cannot know that, waits the command out (its timeout and
 * the margin past its recorded start) before anything runs on the machine, then says so and never runs it again.
 */
describe("a command of a replica SIGKILLed mid-step", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let dir: ReturnType<typeof tempDir>;
  let machines: SimulatedMachines;
  const processes = new Map<string, ServeProcess>();
  const urls = new Map<string, string>();

  before(async () => {
    etcd = await startTestEtcd();
    dir = tempDir("kintsugi-inherited-");
    machines = new SimulatedMachines(dir.path);
    const argv = (a: string[]) => `[${a.map((x) => JSON.stringify(x)).join(", ")}]`;
    for (const name of NAMES) {
      writeFileSync(
        join(dir.path, `${name}.yaml`),
        `listen: "127.0.0.1:0"
store: etcd
etcd:
  endpoints: ${argv([...etcd.endpoints])}
  prefix: "/inherited-e2e/"
leader_election:
  lease_ttl_seconds: 2
  replica_name: ${name}
runner:
  interval_seconds: 0.1
  inherited_command_margin_seconds: ${MARGIN_SECONDS}
repair:
  repair_procedures:
    - machine_types: [m]
      repair_operations:
        - operation: op
          repair_steps:
            - repair_command: ${argv(machines.command("held-fix"))}
              command_timeout_seconds: ${TIMEOUT_SECONDS}
              watch_seconds: 0
          health_check_command: ${argv(machines.command("health"))}
`,
      );
    }
    for (const name of NAMES) {
      const server = serveProcess(["--config", `${name}.yaml`], dir.path);
      processes.set(name, server);
      urls.set(name, await server.url);
    }
  });

  after(async () => {
    for (const server of processes.values()) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    await Promise.all([...processes.values()].map((s) => s.exited));
    await etcd?.stop();
    dir?.remove();
  });

  /**
   * Stores, under `prefix`, the state a leader leaves when it dies mid-step: an entry of `address` processing step 1,
   * watching, with `marker` as its command marker. Returns its index.
   */
  async function leftMidStep(prefix: string, address: string, marker: (index: number) => CommandMarker): Promise<number> {
    const client = testEtcdClient(etcd.endpoints);
    try {
      const store = await openEtcdStore({ client, endpoints: etcd.endpoints, prefix });
      const { entry } = await store.entries.add(
        createRepairEntry({ address, machineType: "m", operation: "op", serial: null, source: "test" }, Date.now()),
        "added",
        Date.now(),
        "test",
      );
      const watching = { ...entry, status: "processing" as const, stepStatus: "watching" as const, command: marker(entry.index) };
      await store.entries.change(
        entry.index,
        () => [{ entry: watching, kind: "transition", reason: "step 1: running the repair command" }],
        Date.now(),
        "kintsugi",
      );
      await store.close();
      return entry.index;
    } finally {
      client.close();
    }
  }

  /** A real replica named `name` on `prefix` whose operation "op" has one step, `fix`, watched 0 s. */
  const fixingReplica = (name: string, prefix: string, inheritedCommandMarginSeconds?: number) =>
    startEtcdReplicas(etcd, [name], {
      prefix,
      leaseTtlSeconds: 2,
      ...(inheritedCommandMarginSeconds !== undefined && { inheritedCommandMarginSeconds }),
      repair: () => ({
        ...EMPTY_REPAIR_CONFIG,
        repairProcedures: [
          { machineTypes: ["m"], repairOperations: [operationOf(machines, [stepOf(machines, "fix", { watchSeconds: 0 })], { operation: "op" })] },
        ],
      }),
    });

  it("the command dies with its replica; the successor waits it out, says so, and does not run it again", async () => {
    const { healths, leaderAt } = await untilOneLeads([...urls.values()], 30_000);
    const victim = healths[leaderAt]?.replica as (typeof NAMES)[number];
    const successor = NAMES.find((n) => n !== victim) as string;
    const added = await fetch(`${urls.get(victim)}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `mutation { addRepairEntry(operation: "op", machineType: "m", address: "${ADDRESS}") { index } }` }),
    });
    assert.equal(added.status, 200);
    await until("the repair command runs", () => machines.running(ADDRESS));

    processes.get(victim)?.child.kill("SIGKILL");
    const killedAt = Date.now();
    await until("the command died with its replica", () => !machines.running(ADDRESS));

    await until(
      "the successor leads",
      () => replicaHealthIfUp(urls.get(successor) as string),
      (h) => h?.leader === true,
      30_000,
    );
    const waiting = await until(
      "the successor says what it waits for",
      () => entryOn(urls.get(successor) as string),
      (e) => /may still be running/.test(e?.waitReason ?? ""),
    );
    assert.match(
      waiting?.waitReason ?? "",
      new RegExp(
        `started by replica "${victim}" at .*nothing runs on machine ${ADDRESS.replaceAll(".", "\\.")} until (\\S+) \\(its timeout of ${TIMEOUT_SECONDS}s and a margin of ${MARGIN_SECONDS}s\\)`,
      ),
    );
    const waitEnd = Date.parse(/until (\S+) \(/.exec(waiting?.waitReason ?? "")?.[1] ?? "");
    const healthChecks = () => machines.log().filter((l) => l === `health ${ADDRESS}`).length;
    const checksAtTakeover = healthChecks();
    await until("the wait is nearly over", () => Date.now() >= waitEnd - 300, Boolean, 30_000);
    assert.equal(healthChecks(), checksAtTakeover, "no health check ran on the machine while its inherited command might run");

    machines.setHealthy(ADDRESS);
    const done = await until(
      "the entry succeeds once the wait is over",
      () => entryOn(urls.get(successor) as string),
      (e) => e?.status === "SUCCEEDED",
      30_000,
    );
    const interrupted = done?.history.find((h) => /was interrupted/.test(h.reason));
    assert.ok(interrupted, JSON.stringify(done?.history));
    assert.match(interrupted.reason, /its outcome is unknown, it is not run again; watching from now/);
    assert.ok(Date.parse(interrupted.time) >= waitEnd - 1000, `interrupted at ${interrupted.time}, the wait ended at ${new Date(waitEnd).toISOString()}`);
    assert.ok(waitEnd - killedAt > 0);
    assert.equal(machines.runs("held-fix", ADDRESS), 1, "the interrupted command was not run again");
    // Each runner record names the replica that wrote it: the victim's up to its command's start, the successor's after.
    const byReplica = done?.history.filter((h) => h.actor === "kintsugi").map((h) => [h.replica, h.reason.slice(0, 40)]);
    assert.equal(done?.history.find((h) => /starting the repair command/.test(h.reason))?.replica, victim, JSON.stringify(byReplica));
    assert.equal(interrupted.replica, successor);
    assert.equal(done?.history[0]?.replica, null, "the API's record names no replica");
  });

  it("a repair command decided but never started (its leader died in between) is said so and run once, by a real replica", async () => {
    const address = "10.9.3.2";
    const prefix = "/never-started-e2e/";
    // The state a leader leaves when it dies between committing `watching` and starting the command.
    await leftMidStep(prefix, address, () => commandDue({ replica: "replica-gone", run: "0" }, TIMEOUT_SECONDS));
    machines.setHealthy(address, false);
    const [replica] = await fixingReplica("replica-c", prefix);
    try {
      const done = await until(
        "the entry is repaired",
        () => entryOn(replica?.url as string),
        (e) => e?.status === "SUCCEEDED",
        30_000,
      );
      const reasons = done?.history.map((h) => h.reason) ?? [];
      assert.ok(
        reasons.some((r) => r === 'step 1: its repair command never started (replica "replica-gone", which was to run it, stopped first); running it now'),
        JSON.stringify(reasons),
      );
      assert.equal(machines.runs("fix", address), 1, "run once, now");
    } finally {
      await replica?.dispose();
    }
  });
  it("an entry deleted while its inherited command may run keeps its machine until the command has certainly ended; one added again waits, then runs", async () => {
    const address = "10.9.3.3";
    const prefix = "/deleted-fenced-e2e/";
    const margin = 2;
    // The state a leader leaves when it dies with the step's repair command running (long enough to outlast the
    // replica's start on a loaded machine).
    const index = await leftMidStep(prefix, address, (i) => commandStarted("repair", `${i}-1-1-ab`, { replica: "replica-gone", run: "0" }, Date.now(), 12));
    machines.setHealthy(address, false);
    const [replica] = await fixingReplica("replica-d", prefix, margin);
    const url = replica?.url as string;
    const gql = async (query: string) => {
      const res = await fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
      return (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    };
    type Listed = { index: string; status: string; waitReason: string | null };
    const listed = async () => ((await gql(`{ searchRepairEntries { index status waitReason } }`)).data?.["searchRepairEntries"] ?? []) as Listed[];
    try {
      await until("the replica waits for the inherited command", listed, (l) => /may still be running/.test(l[0]?.waitReason ?? ""));
      assert.equal((await gql(`mutation { deleteRepairEntry(index: ${index}) { index } }`)).errors, undefined);
      const added = await gql(`mutation { addRepairEntry(operation: "op", machineType: "m", address: "${address}") { index } }`);
      assert.equal(added.errors, undefined, JSON.stringify(added.errors));
      const again = (added.data?.["addRepairEntry"] as { index: string }).index;
      const reasonOf = (l: Listed[], i: string) => l.find((e) => e.index === i)?.waitReason ?? "";
      await until(
        "the deleted entry stays, and the new one waits for its machine",
        listed,
        (l) =>
          l.length === 2 &&
          /^deleted; it leaves the queue once its command has certainly ended/.test(reasonOf(l, String(index))) &&
          new RegExp(`being repaired by entry ${index}\\b`).test(reasonOf(l, again)),
      );
      assert.equal(machines.runs("fix", address), 0, "nothing ran on the machine while the deleted entry's command might run");
      const done = await until("the deleted entry leaves and the new one is repaired", listed, (l) => l.length === 1 && l[0]?.status === "SUCCEEDED", 30_000);
      assert.equal(done[0]?.index, again);
      assert.equal(machines.runs("fix", address), 1);
    } finally {
      await replica?.dispose();
    }
  });
});
