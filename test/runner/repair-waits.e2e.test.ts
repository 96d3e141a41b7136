import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { operationOf, startRepairWorld, stepOf, type RepairWorld } from "../support/repair-world.js";
import { until } from "../support/until.js";
import { subscribe } from "../support/ws-subscriber.js";

const ADDRESS = "10.0.4.1";

interface Wait {
  kind: string;
  message: string;
  until: string | null;
  domain: string | null;
  entryIndex: number | null;
}
interface Entry {
  status: string;
  deleted: boolean;
  lastTransitionTime: string;
  waitReason: string | null;
  waitingFor: Wait | null;
}

const entryOf = async (w: RepairWorld, index: string): Promise<Entry> => {
  const res = await w.k.gql<{ repairEntry: Entry }>(
    `query($i: ID!) { repairEntry(index: $i) { status deleted lastTransitionTime waitReason waitingFor { kind message until domain entryIndex } } }`,
    { i: index },
  );
  if (!res.data) throw new Error(JSON.stringify(res.errors));
  return res.data.repairEntry;
};
const waitFor = (w: RepairWorld, index: string, done: (e: Entry) => boolean) =>
  until(`entry ${index} reaches the wait wanted`, () => entryOf(w, index), done, 30_000);

describe("RepairEntry.waitingFor over GraphQL (test Kubernetes API)", () => {
  it("says a command runs, another entry repairs the machine, then a watch until its end; null once deleted or finished", async () => {
    const w = await startRepairWorld((m) => ({
      maxConcurrentRepairs: 3,
      repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(m, [stepOf(m, "held-reboot", { watchSeconds: 30 })])] }],
    }));
    try {
      w.kube.addNode({ name: "n1", internalIP: ADDRESS });
      const first = await w.add(ADDRESS);
      const running = await waitFor(w, first, (e) => e.waitingFor?.kind === "COMMAND");
      assert.deepEqual(running.waitingFor, { kind: "COMMAND", message: "step 1: running the repair command", until: null, domain: null, entryIndex: null });
      assert.equal(running.waitReason, null, "waitReason stays the rules' holds only");

      const second = await w.add(ADDRESS);
      const busy = await waitFor(w, second, (e) => e.waitingFor !== null);
      assert.deepEqual(busy.waitingFor, {
        kind: "MACHINE_BUSY",
        message: `machine ${ADDRESS} is being repaired by entry ${first}`,
        until: null,
        domain: null,
        entryIndex: Number(first),
      });
      assert.equal(busy.waitReason, busy.waitingFor?.message);

      w.machines.release(ADDRESS);
      const watching = await waitFor(w, first, (e) => e.waitingFor?.kind === "WATCHING");
      const end = new Date(Date.parse(watching.lastTransitionTime) + 30_000).toISOString();
      assert.deepEqual(
        { ...watching.waitingFor, until: Date.parse(watching.waitingFor?.until ?? "") },
        { kind: "WATCHING", message: `step 1: watching the health check for 30s, until ${end}`, until: Date.parse(end), domain: null, entryIndex: null },
      );

      await w.mutate(`mutation { deleteRepairEntry(index: "${second}") { index } }`);
      assert.equal((await waitFor(w, second, (e) => e.deleted)).waitingFor, null, "a deleted entry waits for nothing");
      w.machines.setHealthy(ADDRESS);
      const done = await waitFor(w, first, (e) => e.status === "SUCCEEDED");
      assert.equal(done.waitingFor, null, "a finished entry waits for nothing");
    } finally {
      await w.dispose();
    }
  });

  it("repairWaits sends the whole list each time the waits change", async () => {
    const w = await startRepairWorld((m) => ({
      maxConcurrentRepairs: 3,
      repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(m, [stepOf(m, "held-reboot")])] }],
    }));
    type Sent = { repairWaits: Array<{ index: string; waitingFor: { kind: string; message: string } }> };
    const subscriber = subscribe<Sent>(w.k.url, "subscription { repairWaits { index waitingFor { kind message } } }");
    try {
      await subscriber.ready;
      await w.mutate("mutation { setRepairQueueEnabled(enabled: false) }");
      const index = await w.add(ADDRESS);
      const disabled = await until(
        "the queue-disabled wait is sent",
        () => subscriber.received.at(-1)?.repairWaits,
        (ws) => ws?.[0]?.waitingFor.kind === "QUEUE_DISABLED",
      );
      assert.deepEqual(disabled, [{ index, waitingFor: { kind: "QUEUE_DISABLED", message: "the repair queue is disabled" } }]);
      const sent = subscriber.received.length;
      // Each pass asks the queued machine's health.
      const checks = w.machines.runs("health", ADDRESS);
      await until("three more passes", () => w.machines.runs("health", ADDRESS) >= checks + 3);
      assert.equal(subscriber.received.length, sent, "passes that change no wait send nothing");
      await w.mutate("mutation { setRepairQueueEnabled(enabled: true) }");
      const running = await until(
        "the command's wait is sent",
        () => subscriber.received.at(-1)?.repairWaits,
        (ws) => ws?.[0]?.waitingFor.kind === "COMMAND",
      );
      assert.deepEqual(running, [{ index, waitingFor: { kind: "COMMAND", message: "step 1: running the repair command" } }]);
    } finally {
      await subscriber.close();
      w.machines.release(ADDRESS);
      await w.dispose();
    }
  });
});
