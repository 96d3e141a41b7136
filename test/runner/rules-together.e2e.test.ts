import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { CONTROL_PLANE_LABEL } from "../../src/domain/queue/control-planes.js";
import { startKintsugi, type RunningKintsugi } from "../../src/main.js";
import { loadConfigForStart } from "../../src/wiring/start-checks.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { graphqlData } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

// Rules that used to be wrong together, each through what `kintsugi serve` runs (the config loaded with serve's start
// checks, then startKintsugi in this process) with the test Kubernetes API, the test sabakan and real commands. One
// server serves every case, in order; each case uses machines of its own and leaves no unfinished entry behind.

interface Entry {
  index: string;
  status: string;
  step: number;
  stepStatus: string;
  waitReason: string | null;
  history: Array<{ reason: string }>;
  evidence: { dwellStartedAt: string | null; provenAt: string | null } | null;
}

const CP = (n: number) => `10.0.2.${n}`;
const W = (n: number) => `10.0.3.${n}`;
const RACKED = (n: number) => `10.0.4.${n}`;
const OFFENDER = (n: number) => `10.0.5.${n}`;
const DWELL_SECONDS = 3;
const ENTRY = `index status step stepStatus waitReason history { reason } evidence { dwellStartedAt provenAt }`;
const argv = (a: string[]) => `[${a.map((x) => JSON.stringify(x)).join(", ")}]`;
const finished = (e: Entry) => e.status === "SUCCEEDED" || e.status === "FAILED";
const reasons = (e: Entry) => e.history.map((h) => h.reason);

function configText(dir: string, m: SimulatedMachines, kube: FakeKubeApi, sabakan: FakeSabakan): string {
  const [fix, noop, health] = [argv(m.command("fix")), argv(m.command("noop")), argv(m.command("health"))];
  return `listen: "127.0.0.1:0"
database: ${JSON.stringify(join(dir, "kintsugi.db"))}
auth: { anonymous: admin }
runner: { interval_seconds: 0.1 }
sabakan: { url: ${JSON.stringify(sabakan.url)}, schedule: "0 0 1 1 *", timeout_seconds: 2 }
kubernetes: { kubeconfig: ${JSON.stringify(kube.kubeconfigPath)} }
constraints: { maximum-repair-queue-entries: 100 }
repair:
  max_concurrent_repairs: 5
  escalation: { max_repairs: 1, window_seconds: 3600 }
  repair_procedures:
    - machine_types: [m]
      repair_operations:
        - operation: fix
          repair_steps: [{ repair_command: ${fix}, watch_seconds: 30 }]
          health_check_command: ${health}
        - operation: stay
          repair_steps: [{ repair_command: ${noop}, watch_seconds: 60 }]
          health_check_command: ${health}
        - operation: sabakan-proof
          repair_steps:
            - { repair_command: ${fix}, watch_seconds: 1 }
            - { repair_command: ${noop}, need_drain: true, watch_seconds: 2 }
          health_check_command: ${health}
          success_requires: [sabakan_healthy]
          success_dwell_seconds: ${DWELL_SECONDS}
        - operation: dwell
          repair_steps: [{ repair_command: ${fix}, watch_seconds: 1 }]
          health_check_command: ${health}
          success_dwell_seconds: ${DWELL_SECONDS}
        - operation: node-not-ready
          repair_steps: [{ repair_command: ${noop}, watch_seconds: 60 }]
          health_check_command: ${health}
        - operation: unhealthy
          repair_steps: [{ repair_command: ${noop}, watch_seconds: 60 }]
          health_check_command: ${health}
health_checks:
  - name: racks
    selector: { matchLabels: { hc: "yes" } }
    unhealthy_conditions: [{ type: Ready, status: "False", timeout_seconds: 1 }]
    operation: node-not-ready
    machine_type_label: machine-type
`;
}

describe("rules that hold together (kintsugi serve in this process, test Kubernetes API and sabakan)", () => {
  const dir = tempDir("kintsugi-rules-");
  const machines = new SimulatedMachines(dir.path);
  let kube: FakeKubeApi;
  let sabakan: FakeSabakan;
  let k: RunningKintsugi;
  const gql = <T = Record<string, any>>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(k.url, query, variables);
  const add = async (operation: string, address: string) =>
    (
      await gql<{ addRepairEntry: { index: string } }>(
        `mutation($o: String!, $a: IPAddress!) { addRepairEntry(operation: $o, machineType: "m", address: $a) { index } }`,
        { o: operation, a: address },
      )
    ).addRepairEntry.index;
  const entry = async (index: string) =>
    (await gql<{ repairEntry: Entry }>(`query($i: ID!) { repairEntry(index: $i) { ${ENTRY} } }`, { i: index })).repairEntry;
  const waitFor = (what: string, index: string, done: (e: Entry) => boolean) => until(what, () => entry(index), done);
  const unfinished = async () =>
    (await gql<{ searchRepairEntries: Array<{ index: string }> }>(`{ searchRepairEntries(having: { statuses: [QUEUED, PROCESSING] }) { index } }`))
      .searchRepairEntries;
  /** Deletes every unfinished entry and waits until the runner has dequeued them. */
  const deleteUnfinished = async () => {
    for (const e of await unfinished()) await gql(`mutation($i: ID!) { deleteRepairEntry(index: $i) { index } }`, { i: e.index });
    await until("every unfinished entry is dequeued", unfinished, (left) => left.length === 0);
  };

  before(async () => {
    kube = await startFakeKubeApi();
    sabakan = await startFakeSabakan();
    for (const n of [1, 2, 3]) kube.addNode({ name: `cp${n}`, internalIP: CP(n), labels: { [CONTROL_PLANE_LABEL]: "" } });
    for (const n of [1, 2, 3]) kube.addNode({ name: `w${n}`, internalIP: W(n) });
    sabakan.addMachine({ serial: "w1", rack: 3, ipv4: [W(1)], bmcType: "m", state: "HEALTHY" });
    const file = join(dir.path, "kintsugi.yaml");
    writeFileSync(file, configText(dir.path, machines, kube, sabakan));
    const { config, warnings } = await loadConfigForStart(file, process.env);
    k = await startKintsugi(config, { logger: pino({ level: process.env["KINTSUGI_TEST_LOG"] ?? "silent" }), configWarnings: warnings, random: () => 0 });
  });
  after(async () => {
    await k?.close();
    await kube?.close();
    await sabakan?.close();
    dir.remove();
  });

  it("a sabakan outage during a dwell is not a relapse: the watch the dwell holds stays open, the machine is not drained, and the repair is proven", async () => {
    const index = await add("sabakan-proof", W(1));
    const dwelling = await waitFor("the dwell starts", index, (e) => e.evidence?.dwellStartedAt != null);
    sabakan.failWithStatus(503, "sabakan is down", Infinity);
    const dwellEnd = Date.parse(dwelling.evidence?.dwellStartedAt ?? "") + DWELL_SECONDS * 1000;
    const during = await waitFor(
      "the dwell's end passes while sabakan cannot be asked",
      index,
      (e) => Date.now() > dwellEnd + 500 && /sabakan_healthy unknown/.test(e.waitReason ?? ""),
    );
    assert.deepEqual([during.status, during.step, during.stepStatus], ["PROCESSING", 0, "WATCHING"], "its 1 s watch stays open");
    assert.deepEqual(
      reasons(during).filter((r) => /relapse|moving to step|draining/.test(r)),
      [],
    );
    sabakan.clearFaults();
    const done = await waitFor("the entry finishes", index, finished);
    assert.equal(done.status, "SUCCEEDED");
    assert.ok(reasons(done).some((r) => /repair proven/.test(r)));
    assert.equal(reasons(done).filter((r) => /dwell (started|restarted)/.test(r)).length, 1, "one dwell, never restarted");
    assert.equal(machines.runs("noop", W(1)), 0, "step 2 never ran");
    assert.equal(
      kube.requests.some((r) => r.method === "PATCH" && r.path === "/api/v1/nodes/w1"),
      false,
      "the healthy machine was never cordoned",
    );
  });

  it("a dwell longer than every watch of its operation loads and proves a repair after its watch ran out", async () => {
    const index = await add("dwell", W(2));
    const done = await waitFor("the entry finishes", index, finished);
    assert.equal(done.status, "SUCCEEDED");
    const started = Date.parse(done.evidence?.dwellStartedAt ?? "");
    assert.ok(Date.parse(done.evidence?.provenAt ?? "") - started >= DWELL_SECONDS * 1000, "proven at the dwell's end, past the 1 s watch");
  });

  it("a control plane that yields to a dead one keeps the watch its dwell holds open and is proven, not failed", async () => {
    const a = await add("dwell", CP(1));
    await waitFor("cp1's dwell starts", a, (e) => e.evidence?.dwellStartedAt != null);
    kube.setNodeCondition("cp2", "Ready", "False");
    const b = await add("fix", CP(2));
    await waitFor("cp1 gives up the turn to cp2", a, (e) => e.waitReason === "control plane cp2 is not Ready" || finished(e));
    const done = await waitFor("cp1 finishes", a, finished);
    assert.equal(done.status, "SUCCEEDED", reasons(done).join("\n"));
    assert.equal(reasons(done).filter((r) => /still unhealthy/.test(r)).length, 0);
    assert.equal((await waitFor("cp2 finishes", b, finished)).status, "SUCCEEDED");
    kube.setNodeCondition("cp2", "Ready", "True");
  });

  it("a hold on a control plane mid-repair does not stop the repair of a dead one", async () => {
    // Both broke again since the last case (a healthy cp2 would succeed by the health rule, whoever has the turn).
    for (const n of [1, 2]) machines.setHealthy(CP(n), false);
    const a = await add("stay", CP(1));
    await waitFor("cp1 watches its step", a, (e) => e.stepStatus === "WATCHING" && machines.runs("noop", CP(1)) === 1);
    await gql(`mutation($a: IPAddress!) { holdMachine(address: $a, reason: "vendor on site") { address } }`, { a: CP(1) });
    await waitFor("cp1 is held", a, (e) => e.waitReason === "held by anonymous: vendor on site");
    kube.setNodeCondition("cp2", "Ready", "False");
    const b = await add("fix", CP(2));
    const done = await waitFor("cp2 finishes", b, finished);
    assert.equal(done.status, "SUCCEEDED", reasons(done).join("\n"));
    const held = await entry(a);
    assert.deepEqual([held.status, held.step, held.stepStatus, machines.runs("noop", CP(1))], ["PROCESSING", 0, "WATCHING", 1], "the held one did not move");
    await gql(`mutation($a: IPAddress!) { releaseMachine(address: $a) { address } }`, { a: CP(1) });
    kube.setNodeCondition("cp2", "Ready", "True");
    await deleteUnfinished();
  });

  it("no repair operation runs while two of three control planes are not Ready, a worker's included", async () => {
    kube.setNodeCondition("cp2", "Ready", "False");
    kube.setNodeCondition("cp3", "Ready", "False");
    const index = await add("fix", W(3));
    const waiting = await waitFor("the worker waits for etcd", index, (e) =>
      /^etcd is not good for repair: 1 of 3 control planes are Ready/.test(e.waitReason ?? ""),
    );
    assert.equal(waiting.status, "QUEUED");
    assert.equal(machines.runs("fix", W(3)), 0);
    kube.setNodeCondition("cp3", "Ready", "True");
    assert.equal((await waitFor("the worker is repaired once a majority is Ready", index, finished)).status, "SUCCEEDED");
    kube.setNodeCondition("cp2", "Ready", "True");
  });

  it("health checks hold back a rack over maximum-unhealthy-machines-per-rack, as the sabakan trigger does", async () => {
    for (const n of [1, 2, 3, 4]) {
      kube.addNode({ name: `r${n}`, internalIP: RACKED(n), labels: { hc: "yes", "machine-type": "m" } });
      sabakan.addMachine({ serial: `r${n}`, rack: n < 4 ? 7 : 8, ipv4: [RACKED(n)], bmcType: "m", state: "HEALTHY" });
    }
    await gql(`mutation { setConstraint(name: "maximum-unhealthy-machines-per-rack", value: 2) { maximumUnhealthyMachinesPerRack } }`);
    for (const n of [1, 2, 3, 4]) kube.setNodeCondition(`r${n}`, "Ready", "False", new Date(Date.now() - 60_000));
    const check = async () =>
      (await gql<{ healthChecks: Array<{ held: Array<{ node: string; reason: string }> }> }>(`{ healthChecks { held { node reason } } }`)).healthChecks[0];
    const racked = async () =>
      (
        await gql<{ searchRepairEntries: Array<{ index: string; address: string; source: string }> }>(
          `{ searchRepairEntries(having: { operations: ["node-not-ready"] }) { index address source } }`,
        )
      ).searchRepairEntries;
    const enqueued = await until("the other rack's node is enqueued", racked, (es) => es.length > 0);
    const held = await until("the rack's nodes are held", check, (c) => (c?.held.length ?? 0) === 3);
    assert.deepEqual(
      enqueued.map((e) => [e.address, e.source]),
      [[RACKED(4), "health-check:racks"]],
    );
    assert.deepEqual(
      held?.held,
      ["r1", "r2", "r3"].map((node) => ({ node, reason: "rack 7: 3 unhealthy machines, likely an infrastructure failure" })),
    );
    assert.deepEqual(
      (await racked()).map((e) => e.address),
      [RACKED(4)],
    );
    // The replay weighs the rack limit over the racks the remediation records kept: as recorded, no target of the
    // check fares differently; with a limit of 3, the rack the live limit held would have been enqueued by the first
    // evaluation (and found in the simulated queue by the later ones).
    const replayed = async (rack: number | null) =>
      (
        await gql<{ simulateAutoRepair: { polls: Array<{ healthCheck: string | null; targets: Array<{ node: string; live: string; simulated: string }> }> } }>(
          `query($since: DateTime!, $c: ReplayConstraintsInput) { simulateAutoRepair(since: $since, constraints: $c) { polls { healthCheck targets { node live simulated } } } }`,
          { since: new Date(Date.now() - 3_600_000).toISOString(), c: rack === null ? null : { maximumUnhealthyMachinesPerRack: rack } },
        )
      ).simulateAutoRepair.polls
        .filter((p) => p.healthCheck === "racks")
        .map((p) => p.targets.map((t) => `${t.node}:${t.live}->${t.simulated}`));
    assert.deepEqual(await replayed(null), []);
    const [first, ...later] = await replayed(3);
    assert.deepEqual(first, ["r1:RACK_LIMIT->ENQUEUED", "r2:RACK_LIMIT->ENQUEUED", "r3:RACK_LIMIT->ENQUEUED"]);
    assert.deepEqual(
      later.flat().filter((t) => !t.endsWith(":RACK_LIMIT->RECENTLY_REPAIRED")),
      [],
    );
    await gql(`mutation { setConstraint(name: "maximum-unhealthy-machines-per-rack", value: 0) { maximumUnhealthyMachinesPerRack } }`);
    for (const n of [1, 2, 3, 4]) kube.removeNode(`r${n}`);
    await deleteUnfinished();
  });

  it("repeat offenders a poll would hold count against maximum-repair-queue-entries: a poll the cap stops holds nobody", async () => {
    // Each machine was repaired once in the window (max_repairs 1): an entry added, then deleted.
    for (const n of [1, 2]) await add("unhealthy", OFFENDER(n));
    await deleteUnfinished();
    for (const n of [1, 2]) sabakan.addMachine({ serial: `e${n}`, rack: 9, ipv4: [OFFENDER(n)], bmcType: "m", state: "UNHEALTHY" });
    const queued = (await gql<{ searchRepairEntries: unknown[] }>(`{ searchRepairEntries { index } }`)).searchRepairEntries.length;
    const poll = async (cap: number) => {
      await gql(`mutation($v: Int!) { setConstraint(name: "maximum-repair-queue-entries", value: $v) { maximumRepairQueueEntries } }`, { v: cap });
      return (
        await gql<{ runAutoRepair: { shortCircuit: { candidates: number } | null; skipped: Array<{ serial: string; kind: string }> } }>(
          `mutation { runAutoRepair { shortCircuit { candidates } skipped { serial kind } } }`,
        )
      ).runAutoRepair;
    };
    const holds = async () =>
      (await gql<{ machineHolds: Array<{ address: string; setBy: string }> }>(`{ machineHolds { address setBy } }`)).machineHolds.filter(
        (h) => h.setBy === "escalation",
      );
    const capped = await poll(queued + 1);
    assert.deepEqual(capped.shortCircuit, { candidates: 2 });
    assert.deepEqual(
      capped.skipped.map((s) => [s.serial, s.kind]),
      [
        ["e1", "QUEUE_LIMIT"],
        ["e2", "QUEUE_LIMIT"],
      ],
    );
    assert.deepEqual(await holds(), [], "a poll the cap stopped stored no hold");
    const room = await poll(queued + 2);
    assert.equal(room.shortCircuit, null);
    assert.deepEqual(
      (await holds()).map((h) => h.address),
      [OFFENDER(1), OFFENDER(2)],
      "with room for both, both are held",
    );
  });
});
