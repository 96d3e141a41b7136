import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { subscribe, type Subscriber } from "../support/ws-subscriber.js";

const NOW = Date.UTC(2026, 10, 22, 6, 0, 0, 0);
const MACHINES = 12;

/** The sabakan requests that searched the whole fleet (the join's search), out of `requests`. */
const fleetSearches = (sabakan: FakeSabakan, from: number) => sabakan.requests.slice(from).filter((r) => /searchMachines/.test(r.query ?? ""));

describe("sabakan fetches are shared and bounded", () => {
  let sabakan: FakeSabakan;
  let k: TestKintsugi;

  before(async () => {
    sabakan = await startFakeSabakan({ now: () => NOW });
    for (let i = 1; i <= MACHINES; i++)
      sabakan.addMachine({ serial: `m${String(i).padStart(3, "0")}`, rack: i % 3, ipv4: [`10.0.${i % 3}.${i}`], stateSince: NOW - 3600_000 });
    k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 } },
      { now: () => NOW, startSchedule: false },
    );
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
  });

  it("makes identical forwarded queries of one operation once, aliases and all", async () => {
    const before = sabakan.requests.length;
    const res = await k.gql(`{
      a: searchMachines { spec { serial } }
      b: searchMachines { spec { serial } }
      c: searchMachines { spec { serial } }
      x: machine(serial: "m001") { spec { rack } }
      y: machine(serial: "m001") { spec { rack } }
      z: machine(serial: "m002") { spec { rack } }
    }`);
    assert.equal(res.errors, undefined, JSON.stringify(res.errors));
    assert.equal(res.data?.["c"].length, MACHINES);
    assert.deepEqual([res.data?.["x"], res.data?.["y"], res.data?.["z"]], [{ spec: { rack: 1 } }, { spec: { rack: 1 } }, { spec: { rack: 2 } }]);
    // searchMachines once, machine(m001) once, machine(m002) once.
    assert.equal(
      sabakan.requests.length - before,
      3,
      sabakan.requests
        .slice(before)
        .map((r) => r.query)
        .join("\n"),
    );
    const again = sabakan.requests.length;
    await k.gql(`{ searchMachines { spec { serial } } }`);
    assert.equal(sabakan.requests.length - again, 1, "another request is another execution: sabakan is asked afresh");
  });

  it("joins machines for every subscriber of an event with one fleet search, whatever their aliases and fields", async () => {
    const N = 24;
    const subscribers: Array<Subscriber<{ repairEntryEvents: { entry: Record<string, unknown> } }>> = [];
    try {
      for (let i = 0; i < N; i++) {
        const fields = i % 3 === 0 ? "spec { serial }" : i % 3 === 1 ? "status { state }" : "spec { rack serial } status { state }";
        subscribers.push(subscribe(k.url, `subscription { repairEntryEvents { entry { index m${i}: machine { ${fields} } } } }`));
      }
      await Promise.all(subscribers.map((s) => s.ready));
      for (const address of ["10.0.1.1", "10.0.2.2"]) {
        const seen = subscribers.map((s) => s.received.length);
        const before = sabakan.requests.length;
        const added = await k.gql(`mutation ($a: IPAddress!) { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: $a) { index } }`, {
          a: address,
        });
        assert.equal(added.errors, undefined, JSON.stringify(added.errors));
        const events = await Promise.all(subscribers.map((s, i) => s.waitFor(seen[i]! + 1)));
        events.forEach((received, i) => {
          const machine = received.at(-1)!.repairEntryEvents.entry[`m${i}`] as { spec?: { serial: string }; status?: { state: string } };
          if (i % 3 !== 1) assert.equal(machine.spec?.serial, address === "10.0.1.1" ? "m001" : "m002", `subscriber ${i}`);
          if (i % 3 !== 0) assert.equal(machine.status?.state, "HEALTHY", `subscriber ${i}`);
        });
        assert.equal(fleetSearches(sabakan, before).length, 1, `${N} subscribers of one event: one fleet search, not one each`);
      }
    } finally {
      await Promise.all(subscribers.map((s) => s.close()));
    }
  });

  it("bounds fetches in flight with sabakan.max_concurrent_requests: past the bounded queue a fetch is refused, naming the key", async () => {
    const tight = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22, maxConcurrentRequests: 1 } },
      { now: () => NOW, startSchedule: false },
    );
    try {
      // One in flight and 16 waiting (16 times the bound) fill it; the rest are refused at once. 40 clients at once
      // outpace sabakan's half second an answer, however slowly they arrive here.
      const CLIENTS = 40;
      sabakan.setLatency(500, CLIENTS);
      const before = sabakan.requests.length;
      const answers = await Promise.all(
        Array.from({ length: CLIENTS }, (_, i) =>
          tight.gql(`query ($s: ID!) { machine(serial: $s) { spec { serial } } }`, { s: `m${String((i % MACHINES) + 1).padStart(3, "0")}` }),
        ),
      );
      const refused = answers.filter((a) => a.errors !== undefined);
      assert.ok(refused.length > 0, `${refused.length} of ${CLIENTS} refused`);
      assert.ok(
        refused.some((a) =>
          /1 fetches are in flight \(sabakan\.max_concurrent_requests: 1\) and 16 more wait; try again shortly/.test(a.errors?.[0]?.message ?? ""),
        ),
      );
      for (const a of answers.filter((x) => x.errors === undefined)) assert.match(a.data?.["machine"].spec.serial, /^m0\d\d$/);
      for (const a of refused) {
        assert.match(a.errors?.[0]?.message ?? "", /^sabakan is busy: .*sabakan\.max_concurrent_requests: 1/);
        assert.deepEqual(
          [a.errors?.[0]?.extensions?.type, (a.errors?.[0]?.extensions as { limit?: string }).limit],
          ["LIMIT_EXCEEDED", "sabakan.max_concurrent_requests"],
        );
      }
      assert.equal(sabakan.requests.length - before, CLIENTS - refused.length, "a refused fetch never reaches sabakan");
      assert.equal((await fetch(`${tight.url}/health`)).status, 200);
    } finally {
      sabakan.clearFaults();
      await tight.dispose();
    }
  });
});
