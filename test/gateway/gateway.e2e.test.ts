import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createRepairEntry } from "../../src/domain/queue/repair-entry.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { subscribe } from "../support/ws-subscriber.js";
import { until } from "../support/until.js";
import { withSideStore } from "../support/side-store.js";

const NOW = Date.UTC(2026, 10, 22, 6, 0, 0, 123);
const DAY = 86_400_000;

async function post(url: string, query: string, variables?: Record<string, unknown>) {
  const res = await fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
  return (await res.json()) as { data?: unknown; errors?: Array<{ message: string; path?: unknown; extensions?: unknown; locations?: unknown }> };
}

/** The parts of an answer a client relies on: data, and each error's message, path and extensions. */
const comparable = (a: Awaited<ReturnType<typeof post>>) => ({
  data: a.data ?? null,
  errors: a.errors?.map((e) => ({ message: e.message, path: e.path, extensions: e.extensions })),
});

// sabakan's own documents, as sabakan tooling writes them (aliases, fragments and all).
const SEARCH = `
  query search($having: MachineParams, $notHaving: MachineParams) {
    searchMachines(having: $having, notHaving: $notHaving) {
      spec { serial labels { name value } rack indexInRack role ipv4 registerDate retireDate bmc { bmcType ipv4 } }
      st: status { ...statusFields }
      info { network { ipv4 { address netmask maskbits gateway } } bmc { ipv4 { address } } }
    }
  }
  fragment statusFields on MachineStatus { state timestamp duration }`;
const MACHINE = `query machine($serial: ID!) { machine(serial: $serial) { spec { serial rack role } status { state } __typename } }`;
const SET_STATE = `mutation setState($serial: ID!, $state: MachineState!) { setMachineState(serial: $serial, state: $state) { state timestamp duration } }`;

describe("the sabakan gateway (test sabakan built from sabakan's schema)", () => {
  let sabakan: FakeSabakan;
  let k: TestKintsugi;

  before(async () => {
    sabakan = await startFakeSabakan({ now: () => NOW });
    for (let i = 1; i <= 12; i++) {
      sabakan.addMachine({
        serial: `m${String(i).padStart(3, "0")}`,
        rack: i % 3,
        role: i % 4 === 0 ? "boot" : "cs",
        ipv4: [`10.0.${i % 3}.${i}`],
        labels: i % 2 === 0 ? { datacenter: "dc1", product: "vm" } : { datacenter: "dc2" },
        state: i % 5 === 0 ? "UNHEALTHY" : "HEALTHY",
        stateSince: NOW - i * 3600_000,
        retireDate: NOW + i * 30 * DAY,
      });
    }
    k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 2, maxResponseBytes: 1 << 22 }, constraints: { maximumRepairQueueEntries: 5 } },
      { now: () => NOW, startSchedule: false },
    );
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
  });

  const searches: Array<[string, Record<string, unknown>]> = [
    ["no variables", {}],
    ["labels", { having: { labels: [{ name: "datacenter", value: "dc1" }] } }],
    ["racks", { having: { racks: [0, 2] } }],
    ["roles", { notHaving: { roles: ["boot"] } }],
    ["states", { having: { states: ["UNHEALTHY"] } }],
    ["minDaysBeforeRetire", { having: { minDaysBeforeRetire: 120 }, notHaving: { labels: [{ name: "product", value: "vm" }] } }],
    [
      "everything at once",
      { having: { labels: [{ name: "datacenter", value: "dc1" }], racks: [1, 2], roles: ["cs"], states: ["HEALTHY"], minDaysBeforeRetire: 90 } },
    ],
  ];
  for (const [name, variables] of searches) {
    it(`searchMachines with ${name} answers the same JSON through kintsugi as from sabakan`, async () => {
      const direct = await post(sabakan.url, SEARCH, variables);
      const through = await post(k.url, SEARCH, variables);
      assert.ok(Array.isArray((direct.data as { searchMachines: unknown[] }).searchMachines));
      assert.deepEqual(through, direct);
    });
  }

  it("machine(serial) answers the same JSON, found and not found", async () => {
    for (const serial of ["m003", "nope"]) {
      const direct = await post(sabakan.url, MACHINE, { serial });
      const through = await post(k.url, MACHINE, { serial });
      assert.deepEqual(comparable(through), comparable(direct), serial);
    }
    const missing = await post(k.url, MACHINE, { serial: "nope" });
    assert.equal(missing.data, null, "Machine! is non-null: sabakan's error nulls the answer, as sabakan's does");
    assert.equal(missing.errors?.length, 1);
  });

  it("setMachineState answers the same JSON, for an allowed change and a forbidden one", async () => {
    const directOk = await post(sabakan.url, SET_STATE, { serial: "m001", state: "UPDATING" });
    const throughOk = await post(k.url, SET_STATE, { serial: "m002", state: "UPDATING" });
    assert.deepEqual(throughOk, directOk);
    const directBad = await post(sabakan.url, SET_STATE, { serial: "m001", state: "RETIRED" });
    const throughBad = await post(k.url, SET_STATE, { serial: "m001", state: "RETIRED" });
    assert.equal((directBad.errors?.[0]?.extensions as { type?: string })?.type, "INVALID_STATE_TRANSITION");
    assert.deepEqual(comparable(throughBad), comparable(directBad));
    const missing = [
      await post(sabakan.url, SET_STATE, { serial: "nope", state: "HEALTHY" }),
      await post(k.url, SET_STATE, { serial: "nope", state: "HEALTHY" }),
    ];
    assert.deepEqual(comparable(missing[1]!), comparable(missing[0]!));
  });

  it("rejects what sabakan's schema rejects, as sabakan's own schema would", async () => {
    const res = await post(k.url, `{ searchMachines(having: { maxDaysBeforeRetire: 3 }) { spec { serial } } }`);
    assert.match(res.errors?.[0]?.message ?? "", /Field "maxDaysBeforeRetire" is not defined by type "MachineParams"/);
  });

  it("joins machines and entries, and looks up 100 entries' machines with ONE sabakan request", async () => {
    await withSideStore(k, async (side) => {
      for (let i = 0; i < 100; i++) {
        const address = i < 12 ? `10.0.${(i + 1) % 3}.${i + 1}` : `10.9.${i >> 8}.${i & 255}`;
        await side.entries.add(
          createRepairEntry({ address, machineType: "qemu", operation: "unhealthy", serial: null, source: "test" }, NOW),
          "test",
          NOW,
          "test",
        );
      }
    });
    const before = sabakan.requests.length;
    const res = await post(k.url, `{ searchRepairEntries { index address machine { spec { serial rack } status { state } } } }`);
    assert.equal(sabakan.requests.length - before, 1, "one sabakan request for 100 lookups");
    assert.equal(res.errors, undefined);
    const entries = (res.data as { searchRepairEntries: Array<{ address: string; machine: { spec: { serial: string; rack: number } } | null }> })
      .searchRepairEntries;
    assert.equal(entries.length, 100);
    assert.deepEqual(entries[2]?.machine, { spec: { serial: "m003", rack: 0 }, status: { state: "HEALTHY" } });
    assert.equal(entries[50]?.machine, null, "an address sabakan does not know");

    const joined = await post(k.url, `{ searchMachines(having: { racks: [0] }) { spec { serial } repairEntries { index address } } }`);
    const m3 = (joined.data as { searchMachines: Array<{ spec: { serial: string }; repairEntries: Array<{ address: string }> }> }).searchMachines.find(
      (m) => m.spec.serial === "m003",
    );
    assert.deepEqual(
      m3?.repairEntries.map((e) => e.address),
      ["10.0.0.3"],
    );
    assert.equal(JSON.stringify(joined.data).includes("ipv4"), false, "fields kintsugi needed but the client did not ask for are not shown");
  });

  it("answers a join cycle (machine, its entries, their machine) with ONE sabakan request, each level with what it selected", async () => {
    // Runs after the test above, which queued 100 entries (12 of them on machines sabakan knows).
    const before = sabakan.requests.length;
    const res = await post(
      k.url,
      `{ searchRepairEntries { address machine { spec { serial } repairEntries { index machine { status { state } ...rack } } } } }
       fragment rack on Machine { spec { rack } }`,
    );
    assert.equal(res.errors, undefined, JSON.stringify(res.errors));
    assert.equal(sabakan.requests.length - before, 1, "one sabakan request however deep the joins nest");
    type Entry = {
      address: string;
      machine: { spec: { serial: string }; repairEntries: Array<{ index: string; machine: { status: { state: string }; spec: { rack: number } } }> } | null;
    };
    const entries = (res.data as { searchRepairEntries: Entry[] }).searchRepairEntries;
    const m3 = entries[2]?.machine;
    assert.deepEqual(m3?.spec, { serial: "m003" }, "level 1 gets only what it selected");
    assert.deepEqual(m3?.repairEntries[0]?.machine, { status: { state: "HEALTHY" }, spec: { rack: 0 } }, "level 2 gets its own selection, through a fragment");
  });

  it("answers each event of a subscription that joins machines from sabakan as it is at that event", async () => {
    type Event = { repairEntryEvents: { entry: { index: string; machine: { spec: { serial: string }; status: { state: string } } | null } } };
    const events = subscribe<Event>(k.url, `subscription { repairEntryEvents { entry { index machine { spec { serial } status { state } } } } }`);
    const remove = (index: number) => k.gql(`mutation($i: ID!) { deleteRepairEntry(index: $i) { index } }`, { i: String(index) });
    try {
      await events.ready;
      // Entries 13-100 are on addresses sabakan does not know: removing them until one is heard shows the subscription is live.
      for (let index = 100; events.received.length === 0; index--) {
        assert.ok(index > 12, "the subscription never received an event");
        await remove(index);
        await until(
          "an event arrives",
          () => events.received.length,
          (n) => n > 0,
          300,
        ).catch(() => undefined);
      }
      sabakan.setState("m001", "UNHEALTHY");
      sabakan.setState("m002", "HEALTHY");
      let seen = events.received.length;
      await remove(1);
      const first = (await events.waitFor(seen + 1))[seen]!.repairEntryEvents.entry;
      assert.deepEqual(first.machine, { spec: { serial: "m001" }, status: { state: "UNHEALTHY" } });
      sabakan.setState("m002", "UNREACHABLE");
      seen = events.received.length;
      await remove(2);
      const later = (await events.waitFor(seen + 1))[seen]!.repairEntryEvents.entry;
      assert.deepEqual(later.machine, { spec: { serial: "m002" }, status: { state: "UNREACHABLE" } }, "sabakan as it is at this event, not at the first");
    } finally {
      await events.close();
    }
  });

  it("repairs on setMachineState(UNHEALTHY) at once, within the limits, and tells subscribers", async () => {
    sabakan.addMachine({ serial: "n001", rack: 5, ipv4: ["10.5.0.1"], state: "HEALTHY" });
    sabakan.addMachine({ serial: "n002", rack: 5, ipv4: ["10.5.0.2"], state: "HEALTHY" });
    const states = subscribe<{ machineStateChanged: { serial: string; state: string; status: { state: string; timestamp: string } } }>(
      k.url,
      `subscription { machineStateChanged { serial state status { state timestamp } } }`,
    );
    const outcomes = subscribe<{
      autoRepairOutcomes: { trigger: string; enqueued: Array<{ serial: string; source: string }>; shortCircuit: { candidates: number } | null };
    }>(k.url, `subscription { autoRepairOutcomes { trigger enqueued { serial source } shortCircuit { candidates } } }`);
    try {
      await Promise.all([states.ready, outcomes.ready]);
      // Room for exactly one more entry beside those the earlier cases left.
      const persisting = (await k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"].length as number;
      await k.gql(`mutation { setConstraint(name: "maximum-repair-queue-entries", value: ${persisting + 1}) { maximumRepairQueueEntries } }`);
      const res = await post(k.url, SET_STATE, { serial: "n001", state: "UNHEALTHY" });
      assert.equal(res.errors, undefined);
      const [change] = await states.waitFor(1);
      assert.deepEqual(
        { ...change?.machineStateChanged, status: { state: change?.machineStateChanged.status.state } },
        { serial: "n001", state: "UNHEALTHY", status: { state: "UNHEALTHY" } },
      );
      const [outcome] = await outcomes.waitFor(1);
      assert.deepEqual(outcome?.autoRepairOutcomes, { trigger: "event", enqueued: [{ serial: "n001", source: "sabakan" }], shortCircuit: null });
      const queued = (await k.gql(`{ searchRepairEntries(having: { addresses: ["10.5.0.1"] }) { serial operation source } }`)).data?.["searchRepairEntries"];
      assert.deepEqual(queued, [{ serial: "n001", operation: "unhealthy", source: "sabakan" }]);

      await post(k.url, SET_STATE, { serial: "n002", state: "UNHEALTHY" });
      const [, second] = await outcomes.waitFor(2);
      assert.deepEqual(
        second?.autoRepairOutcomes,
        { trigger: "event", enqueued: [], shortCircuit: { candidates: 1 } },
        "the cap applies to event-driven intake too",
      );
      assert.equal((await states.waitFor(2)).length, 2);
    } finally {
      await states.close();
      await outcomes.close();
    }
  });

  it("repairs on setMachineState from UNREACHABLE to UNHEALTHY, a transition sabakan permits", async () => {
    sabakan.addMachine({ serial: "n003", rack: 6, ipv4: ["10.6.0.3"], state: "UNREACHABLE" });
    // The case before left n002 UNHEALTHY and unqueued: back to HEALTHY, so n003 is the one candidate the room fits.
    sabakan.setState("n002", "HEALTHY");
    const outcomes = subscribe<{ autoRepairOutcomes: { trigger: string; enqueued: Array<{ serial: string; source: string }> } }>(
      k.url,
      `subscription { autoRepairOutcomes { trigger enqueued { serial source } } }`,
    );
    try {
      await outcomes.ready;
      const persisting = (await k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"].length as number;
      await k.gql(`mutation { setConstraint(name: "maximum-repair-queue-entries", value: ${persisting + 1}) { maximumRepairQueueEntries } }`);
      const res = await post(k.url, SET_STATE, { serial: "n003", state: "UNHEALTHY" });
      assert.equal(res.errors, undefined, "sabakan's machines.go permits UNREACHABLE -> UNHEALTHY");
      assert.equal((res.data as { setMachineState: { state: string } }).setMachineState.state, "UNHEALTHY");
      const [outcome] = await outcomes.waitFor(1);
      assert.deepEqual(outcome?.autoRepairOutcomes, { trigger: "event", enqueued: [{ serial: "n003", source: "sabakan" }] });
      const queued = (await k.gql(`{ searchRepairEntries(having: { addresses: ["10.6.0.3"] }) { serial operation } }`)).data?.["searchRepairEntries"];
      assert.deepEqual(queued, [{ serial: "n003", operation: "unhealthy" }]);
    } finally {
      await outcomes.close();
    }
  });
});

describe("the sabakan gateway when sabakan is down or absent", () => {
  it("answers repair queries, erring only on each RepairEntry.machine", async () => {
    const sabakan = await startFakeSabakan();
    const url = sabakan.url;
    await sabakan.close();
    const k = await startTestKintsugi({ sabakan: { url, schedule: "0 0 1 1 *", timeoutSeconds: 2, maxResponseBytes: 1 << 20 } }, { startSchedule: false });
    try {
      await k.gql(
        `mutation { a: addRepairEntry(operation: "unhealthy", machineType: "qemu", address: "10.0.0.1") { index } b: addRepairEntry(operation: "unhealthy", machineType: "qemu", address: "10.0.0.2") { index } }`,
      );
      const res = await k.gql(`{ searchRepairEntries { index machine { spec { serial } } } repairQueueEnabled }`);
      assert.deepEqual(res.data, {
        searchRepairEntries: [
          { index: "1", machine: null },
          { index: "2", machine: null },
        ],
        repairQueueEnabled: true,
      });
      assert.deepEqual(
        res.errors?.map((e) => [e.path, e.extensions?.type]),
        [
          [["searchRepairEntries", 0, "machine"], "SABAKAN_UNAVAILABLE"],
          [["searchRepairEntries", 1, "machine"], "SABAKAN_UNAVAILABLE"],
        ],
      );
      assert.match(res.errors?.[0]?.message ?? "", /is unreachable: ECONNREFUSED/);
    } finally {
      await k.dispose();
    }
  });

  it("says SABAKAN_NOT_CONFIGURED without sabakan, and the rest of the API works", async () => {
    const k = await startTestKintsugi();
    try {
      const res = await k.gql(`{ machine(serial: "x") { spec { serial } } }`);
      assert.equal(res.errors?.[0]?.extensions?.type, "SABAKAN_NOT_CONFIGURED");
      assert.match(res.errors?.[0]?.message ?? "", /sabakan is not configured/);
      assert.deepEqual((await k.gql(`{ repairQueueEnabled }`)).data, { repairQueueEnabled: true });
    } finally {
      await k.dispose();
    }
  });
});
