import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { until, withBridge, type Receiver, type World } from "../support/alert-bridge-world.js";

const RACK = 5;
const HELD = `auto-repair defers 3 machines: 3 in rack ${RACK} over the per-rack limit`;

/** Three unhealthy machines in one rack, over a per-rack limit of 2, and a cap on the queue. */
async function rackOverTheLimit(w: World, cap: number): Promise<void> {
  await w.gql(`mutation { a: setConstraint(name: "maximum-unhealthy-machines-per-rack", value: 2) { maximumUnhealthyMachinesPerRack }
    b: setConstraint(name: "maximum-repair-queue-entries", value: ${cap}) { maximumRepairQueueEntries } }`);
  for (let i = 1; i <= 3; i++) w.sabakan.addMachine({ serial: `r${RACK}-${i}`, rack: RACK, ipv4: [`10.${RACK}.0.${i}`], state: "UNHEALTHY" });
}

const poll = async (w: World) => (await w.gql(`mutation { runAutoRepair { error } }`))["runAutoRepair"].error as string | null;
const autoRepairTitles = (r: Receiver) => r.titles().filter((t) => t.startsWith("auto-repair"));

describe("kintsugi alerts: machines auto-repair defers (the real binary, a real kintsugi, a local webhook)", () => {
  it("a rack held for three polls, with a failed poll among them, gives one 'held' message and one 'cleared' message", () =>
    withBridge({}, async (w, r, b) => {
      const why = () => `${JSON.stringify(r.titles(), null, 1)}\n${b.stderr()}`;
      await rackOverTheLimit(w, 10);
      assert.equal(await poll(w), null);
      assert.equal(await poll(w), null);
      w.sabakan.failWithStatus(503);
      assert.match((await poll(w)) ?? "", /HTTP 503/);
      assert.equal(await poll(w), null);
      for (let i = 1; i <= 3; i++) w.sabakan.setState(`r${RACK}-${i}`, "HEALTHY");
      assert.equal(await poll(w), null);
      await until("the cleared message", () => r.titles().includes("auto-repair no longer defers machines"), why);
      // Messages are posted in event order: once the clear is in, everything before it is too.
      assert.deepEqual(autoRepairTitles(r), [HELD, "auto-repair no longer defers machines"]);
      const [held, cleared] = r.messages;
      assert.equal(held?.kind, "held");
      assert.equal(held?.fields["racks"], String(RACK));
      assert.match(held?.text ?? "", new RegExp(`^rack ${RACK}: 3 machines deferred: more unhealthy machines than maximum-unhealthy-machines-per-rack`));
      assert.equal(cleared?.kind, "cleared");
      assert.match(cleared?.text ?? "", /deferred since \S+ over 3 polls, last: 3 in rack 5 over the per-rack limit$/);
      assert.equal(r.messages.length, 2, why());
    }));

  it("no false clear: when the rack heals into the queue's cap, the hold goes on ('now ...'), and clears once nothing is held", () =>
    withBridge({}, async (w, r, b) => {
      const why = () => `${JSON.stringify(r.titles(), null, 1)}\n${b.stderr()}`;
      await rackOverTheLimit(w, 1);
      assert.equal(await poll(w), null);
      w.sabakan.setState(`r${RACK}-3`, "HEALTHY");
      assert.equal(await poll(w), null, "two unhealthy machines: within the rack limit, over the cap of 1");
      assert.equal(await poll(w), null);
      await w.gql(`mutation { setConstraint(name: "maximum-repair-queue-entries", value: 10) { maximumRepairQueueEntries } }`);
      assert.equal(await poll(w), null);
      const cleared = "auto-repair no longer short-circuited; no machine deferred";
      await until("the cleared message", () => r.titles().includes(cleared), why);
      assert.deepEqual(autoRepairTitles(r), [HELD, `auto-repair still defers 2 machines, now: 2 in rack ${RACK} over maximum-repair-queue-entries`, cleared]);
      const entries = (await w.gql(`{ searchRepairEntries { address } }`))["searchRepairEntries"];
      assert.deepEqual(entries, [{ address: `10.${RACK}.0.1` }, { address: `10.${RACK}.0.2` }], "the clearing poll enqueued them");
    }));
});
