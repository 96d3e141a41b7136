import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../../src/domain/queue/repair-config.js";
import type { EscalationConfig } from "../../src/domain/escalation/repair-escalation.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { until } from "../support/until.js";

const OUTCOME = `enqueued { index address operation serial history { reason } } skipped { serial reason kind }`;
const MINUTE = 60_000;

/**
 * "IPMI-2.0" machines (sabakan's BMC type) have only `retire`: their `unhealthy` entries fail at once and are
 * dequeued when deleted, so each poll that enqueues one is a repair of record without any command running.
 */
const repairWith = (escalation: EscalationConfig): RepairConfig => ({
  ...EMPTY_REPAIR_CONFIG,
  maxConcurrentRepairs: 5,
  repairProcedures: [
    {
      machineTypes: ["IPMI-2.0"],
      repairOperations: [
        {
          operation: "retire",
          repairSteps: [{ repairCommand: ["true"], commandTimeoutSeconds: 30, commandRetries: 0, commandInterval: 0, needDrain: false, watchSeconds: 3600 }],
          healthCheckCommand: ["echo", "false"],
          commandTimeoutSeconds: 30,
          successCommand: null,
          successCommandTimeout: 30,
        },
      ],
    },
  ],
  escalation,
});

/** A kintsugi with its runner on, the fake sabakan and Kubernetes, and a clock the test moves. */
function world(escalation: EscalationConfig) {
  const w = {
    now: Date.UTC(2026, 10, 23, 6, 0, 0),
    sabakan: null as unknown as FakeSabakan,
    kube: null as unknown as FakeKubeApi,
    k: null as unknown as TestKintsugi,
    run: async () => (await w.k.gql(`mutation { runAutoRepair { ${OUTCOME} } }`)).data?.["runAutoRepair"],
    /** Deletes every entry and waits until the runner has dequeued them all. */
    async empty() {
      await w.k.gql(`mutation { deleteUnfinishedRepairEntries { index } deleteFinishedRepairEntries { index } }`);
      await until("the queue is empty", async () => (await w.k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"].length === 0);
    },
    /** One repair of record: a poll enqueues the machine's `unhealthy` entry, it fails at once, it is dequeued. */
    async repairOnce(serial: string) {
      const outcome = await w.run();
      assert.deepEqual(
        outcome.enqueued.map((e: { serial: string; operation: string }) => [e.serial, e.operation]),
        [[serial, "unhealthy"]],
      );
      const index = outcome.enqueued[0].index;
      await until(
        `entry ${index} failed`,
        async () => (await w.k.gql(`{ repairEntry(index: ${index}) { status } }`)).data?.["repairEntry"]?.status === "FAILED",
      );
      await w.empty();
    },
  };
  before(async () => {
    w.sabakan = await startFakeSabakan({ now: () => w.now });
    w.kube = await startFakeKubeApi();
    w.k = await startTestKintsugi(
      {
        sabakan: { url: w.sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 1, maxResponseBytes: 256 * 1024 },
        kubernetes: { kubeconfig: w.kube.kubeconfigPath, timeoutSeconds: 10 },
        constraints: { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 600 },
        repair: repairWith(escalation),
      },
      { now: () => w.now, startSchedule: false, startRunner: true },
    );
  });
  after(async () => {
    await w.k.dispose();
    await w.kube.close();
    await w.sabakan.close();
  });
  return w;
}

describe("repair.escalation through the fake sabakan: the escalation operation", () => {
  const w = world({ maxRepairs: 2, windowSeconds: 3600, operation: "retire" });

  it("after max_repairs repairs within the window the next poll enqueues retire and says escalated; outside the window it repairs normally", async () => {
    w.sabakan.addMachine({ serial: "e001", rack: 1, ipv4: ["10.5.0.1"], state: "UNHEALTHY", stateSince: w.now - 10 * MINUTE });
    await w.repairOnce("e001");
    w.now += 20 * MINUTE;
    await w.repairOnce("e001");
    w.now += 20 * MINUTE;
    const escalated = await w.run();
    assert.deepEqual(
      escalated.enqueued.map((e: { serial: string; operation: string }) => [e.serial, e.operation]),
      [["e001", "retire"]],
    );
    assert.match(escalated.enqueued[0].history[0].reason, /; escalated: repaired 2 times in 1h: enqueued retire instead$/);
    assert.deepEqual(escalated.skipped, [{ serial: "e001", reason: "repaired 2 times in 1h: enqueued retire instead", kind: "ESCALATED" }]);
    await w.empty();

    // Two hours on, the repairs of record are out of the window: the machine's own repair again.
    w.now += 2 * 60 * MINUTE;
    const normal = await w.run();
    assert.deepEqual(
      normal.enqueued.map((e: { serial: string; operation: string }) => [e.serial, e.operation]),
      [["e001", "unhealthy"]],
    );
    assert.deepEqual(normal.skipped, []);
  });
});

describe("repair.escalation through the fake sabakan: a hold", () => {
  const w = world({ maxRepairs: 2, windowSeconds: 86_400, operation: null });

  it("after max_repairs repairs the next poll holds the machine (set by escalation) instead, and the one after skips it as held", async () => {
    w.sabakan.addMachine({ serial: "h001", rack: 2, ipv4: ["10.6.0.1"], state: "UNHEALTHY", stateSince: w.now - 10 * MINUTE });
    w.sabakan.addMachine({ serial: "h002", rack: 2, ipv4: ["10.6.0.2"], state: "HEALTHY" });
    await w.repairOnce("h001");
    w.now += 60 * MINUTE;
    await w.repairOnce("h001");
    w.now += 60 * MINUTE;
    const escalated = await w.run();
    assert.deepEqual(escalated.enqueued, []);
    assert.deepEqual(escalated.skipped, [{ serial: "h001", reason: "repaired 2 times in 1d: held", kind: "ESCALATED" }]);
    const next = await w.run();
    assert.deepEqual(next.skipped, [{ serial: "h001", reason: "held by escalation: repaired 2 times in 1d", kind: "HELD" }]);

    // Another machine is not held by it.
    w.sabakan.setState("h002", "UNHEALTHY");
    const other = await w.run();
    assert.deepEqual(
      other.enqueued.map((e: { serial: string; operation: string }) => [e.serial, e.operation]),
      [["h002", "unhealthy"]],
    );
  });
});

describe("repair.escalation through the fake sabakan: a released machine", () => {
  const w = world({ maxRepairs: 2, windowSeconds: 86_400, operation: null });

  it("released with `kintsugi machine release` is repaired at the next poll, not held again by the same repairs; only repairs after the release count", async () => {
    w.sabakan.addMachine({ serial: "r001", rack: 3, ipv4: ["10.7.0.1"], state: "UNHEALTHY", stateSince: w.now - 10 * MINUTE });
    await w.repairOnce("r001");
    w.now += 60 * MINUTE;
    await w.repairOnce("r001");
    w.now += 60 * MINUTE;
    assert.deepEqual((await w.run()).skipped, [{ serial: "r001", reason: "repaired 2 times in 1d: held", kind: "ESCALATED" }]);

    const released = await runCliInProcess(["--server", w.k.url, "machine", "release", "10.7.0.1"]);
    assert.equal(released.code, 0, released.stderr);
    w.now += MINUTE;
    // The two repairs are still in the window, but the operator released the machine from them.
    const after = await w.run();
    assert.deepEqual(after.skipped, []);
    assert.deepEqual(
      after.enqueued.map((e: { serial: string; operation: string }) => [e.serial, e.operation]),
      [["r001", "unhealthy"]],
    );
    assert.deepEqual((await w.k.gql("{ machineHolds { address } }")).data?.["machineHolds"], [], "not held again");
    const index = after.enqueued[0].index;
    await until(`entry ${index} failed`, async () => (await w.k.gql(`{ repairEntry(index: ${index}) { status } }`)).data?.["repairEntry"]?.status === "FAILED");
    await w.empty();

    // One repair since the release is below max_repairs; a second one makes it a repeat offender again.
    w.now += 60 * MINUTE;
    await w.repairOnce("r001");
    w.now += 60 * MINUTE;
    assert.deepEqual((await w.run()).skipped, [{ serial: "r001", reason: "repaired 2 times in 1d: held", kind: "ESCALATED" }]);
  });
});

describe("repair.escalation through the fake sabakan: a round the queue cap stops", () => {
  const w = world({ maxRepairs: 2, windowSeconds: 86_400, operation: null });
  const setCap = (value: number) => w.k.gql(`mutation { setConstraint(name: "maximum-repair-queue-entries", value: ${value}) { maximumRepairQueueEntries } }`);

  it("holds no repeat offender; the next round within the cap holds it", async () => {
    w.sabakan.addMachine({ serial: "q001", rack: 4, ipv4: ["10.8.0.1"], state: "UNHEALTHY", stateSince: w.now - 10 * MINUTE });
    await w.repairOnce("q001");
    w.now += 60 * MINUTE;
    await w.repairOnce("q001");
    w.now += 60 * MINUTE;
    w.sabakan.addMachine({ serial: "q002", rack: 4, ipv4: ["10.8.0.2"], state: "UNHEALTHY", stateSince: w.now - 10 * MINUTE });
    w.sabakan.addMachine({ serial: "q003", rack: 4, ipv4: ["10.8.0.3"], state: "UNHEALTHY", stateSince: w.now - 10 * MINUTE });
    await setCap(1);
    const capped = await w.run();
    assert.deepEqual(capped.enqueued, []);
    assert.deepEqual(
      capped.skipped.map((m: { serial: string; kind: string }) => [m.serial, m.kind]),
      [
        ["q001", "QUEUE_LIMIT"],
        ["q002", "QUEUE_LIMIT"],
        ["q003", "QUEUE_LIMIT"],
      ],
    );
    assert.deepEqual((await w.k.gql("{ machineHolds { address } }")).data?.["machineHolds"], [], "a round that acts on nothing holds nobody");

    await setCap(10);
    const next = await w.run();
    assert.deepEqual(
      next.enqueued.map((e: { serial: string }) => e.serial),
      ["q002", "q003"],
    );
    assert.deepEqual(next.skipped, [{ serial: "q001", reason: "repaired 2 times in 1d: held", kind: "ESCALATED" }]);
    assert.deepEqual((await w.k.gql("{ machineHolds { address setBy } }")).data?.["machineHolds"], [{ address: "10.8.0.1", setBy: "escalation" }]);
  });
});
