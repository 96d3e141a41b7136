import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FLEET_STATES_MAX_AGE_MS } from "../../src/gateway/shared-fleet-states.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { addRacks } from "../support/status-page.js";

// The fields the status page draws a data center from: machineStateCounts (an answer that grows with the racks, not
// the machines, one sabakan search shared by every client) and a poll's skipped machines as a bounded sample.

const MACHINES = 2_000;
const RACKS = 10;
const COUNTS = `{ machineStateCounts { machines unreadable racks { rack machines states { state machines } repairing held } } }`;
const SET_STATE = `mutation ($serial: ID!, $state: MachineState!) { setMachineState(serial: $serial, state: $state) { state } }`;

/** The fake's searches of the fleet so far (the answers kintsugi asked of it). */
const searches = (sabakan: FakeSabakan) => sabakan.requests.filter((r) => (r.query ?? "").includes("searchMachines")).length;

describe("machineStateCounts and skipped(first:) at 2,000 machines in 10 racks", () => {
  let sabakan: FakeSabakan;
  let k: TestKintsugi;
  let now = Date.UTC(2026, 10, 29, 6, 0, 0);

  before(async () => {
    sabakan = await startFakeSabakan();
    addRacks(sabakan, MACHINES, RACKS);
    // Rack 0: s00000..s00199, addresses 10.0.0.0... (test/support/status-page.ts).
    for (const serial of ["s00000", "s00001", "s00002"]) sabakan.setState(serial, "UNHEALTHY");
    sabakan.setState("s00003", "UNREACHABLE");
    k = await startTestKintsugi(
      {
        sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 30, maxResponseBytes: 1 << 24 },
        constraints: { maximumRepairQueueEntries: 1 },
      },
      { startSchedule: false, now: () => now },
    );
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
  });

  it("counts by rack and state, each rack's machines in the queue and held, in an answer the size of the racks", async () => {
    assert.equal((await k.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.0.0.3") { index } }`)).errors, undefined);
    assert.equal((await k.gql(`mutation { holdMachine(address: "10.0.0.200", reason: "firmware") { address } }`)).errors, undefined);
    const res = await fetch(`${k.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: COUNTS }) });
    const text = await res.text();
    const { data } = JSON.parse(text) as { data: { machineStateCounts: { machines: number; unreadable: number; racks: Array<Record<string, unknown>> } } };
    const counts = data.machineStateCounts;
    assert.equal(counts.machines, MACHINES);
    assert.equal(counts.unreadable, 0);
    assert.deepEqual(
      counts.racks.map((r) => r["rack"]),
      Array.from({ length: RACKS }, (_, i) => i),
    );
    assert.deepEqual(counts.racks[0], {
      rack: 0,
      machines: 200,
      states: [
        { state: "HEALTHY", machines: 196 },
        { state: "UNHEALTHY", machines: 3 },
        { state: "UNREACHABLE", machines: 1 },
      ],
      repairing: 1,
      held: 0,
    });
    assert.equal(counts.racks[1]!["held"], 1, "10.0.0.200 is the first machine of rack 1");
    // What searchMachines would send for these machines is about 100 bytes each; the counts are the racks'.
    assert.ok(text.length < 150 * RACKS, `${text.length} bytes for ${RACKS} racks`);
  });

  it("one sabakan search answers every client for a while; a state change made through kintsugi is counted at once", async () => {
    now += FLEET_STATES_MAX_AGE_MS;
    const before = searches(sabakan);
    const answers = await Promise.all([k.gql(COUNTS), k.gql(COUNTS), k.gql(COUNTS), k.gql(COUNTS)]);
    assert.deepEqual(
      answers.map((a) => a.errors),
      [undefined, undefined, undefined, undefined],
    );
    assert.equal(await k.gql(COUNTS).then((a) => a.errors), undefined);
    assert.equal(searches(sabakan) - before, 1, "five clients, one search");
    assert.equal((await k.gql(SET_STATE, { serial: "s00004", state: "UNHEALTHY" })).errors, undefined);
    const after = (await k.gql(COUNTS)).data?.["machineStateCounts"].racks[0].states;
    assert.deepEqual(after, [
      { state: "HEALTHY", machines: 195 },
      { state: "UNHEALTHY", machines: 4 },
      { state: "UNREACHABLE", machines: 1 },
    ]);
    now += FLEET_STATES_MAX_AGE_MS;
    const searched = searches(sabakan);
    await k.gql(COUNTS);
    assert.equal(searches(sabakan) - searched, 1, "an old answer is not kept past its age");
  });

  it("a poll's skipped machines: all of them, or a sample of `first`, its counts whole; a negative first is refused", async () => {
    // The queue holds 10.0.0.3 and its limit is 1: the unhealthy machines are skipped (queue limit), 10.0.0.3 too (in the queue).
    const polled = await k.gql(`mutation { runAutoRepair { sequence error } }`);
    assert.equal(polled.errors, undefined);
    const outcome = async (first: number | null) =>
      k.gql(`query ($first: Int) { autoRepairOutcomes(last: 1) { skippedTotal skippedByKind { kind machines } skipped(first: $first) { serial kind } } }`, {
        first,
      });
    const all = (await outcome(null)).data?.["autoRepairOutcomes"][0];
    assert.ok(all.skippedTotal >= 4, JSON.stringify(all));
    assert.equal(all.skipped.length, all.skippedTotal);
    const sample = (await outcome(2)).data?.["autoRepairOutcomes"][0];
    assert.equal(sample.skipped.length, 2);
    assert.equal(sample.skippedTotal, all.skippedTotal);
    assert.deepEqual(sample.skippedByKind, all.skippedByKind);
    // Fair to every kind: each kind present gets its share of the sample.
    assert.deepEqual(new Set(sample.skipped.map((s: { kind: string }) => s.kind)), new Set(all.skippedByKind.map((c: { kind: string }) => c.kind)));
    const refused = await outcome(-1);
    assert.equal(refused.errors?.[0]?.extensions?.type, "INVALID_ARGUMENT", JSON.stringify(refused.errors));
  });
});

describe("machineStateCounts without sabakan", () => {
  it("says sabakan is not configured", async () => {
    const k = await startTestKintsugi();
    try {
      const res = await k.gql(COUNTS);
      assert.equal(res.errors?.[0]?.extensions?.type, "SABAKAN_NOT_CONFIGURED", JSON.stringify(res.errors));
    } finally {
      await k.dispose();
    }
  });
});
