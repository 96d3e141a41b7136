import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { NOW, TEST_REPAIR_CONFIG } from "../support/fixtures.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { withSideStore } from "../support/side-store.js";

const ENTRY = `index address nodename serial machineType operation status step stepStatus deleted lastTransitionTime
  drainBackoffCount drainBackoffExpire createdAt source`;
const ADD = `mutation($o: String!, $t: String!, $a: IPAddress!, $s: String) {
  addRepairEntry(operation: $o, machineType: $t, address: $a, serial: $s) { ${ENTRY} } }`;
const LIST = `{ searchRepairEntries { ${ENTRY} history { kind reason status stepStatus deleted } } }`;

describe("repair entry API over HTTP", () => {
  let k: TestKintsugi;
  const add = (o: string, t: string, a: string, s?: string) => k.gql(ADD, { o, t, a, s });
  const everything = async () => (await k.gql(LIST)).data;

  before(async () => {
    k = await startTestKintsugi({}, { now: () => NOW });
  });
  after(() => k.dispose());

  it("adds an entry at CKE's initial values, with its creation in the history", async () => {
    const res = await add("unreachable", "qemu", "10.0.0.1", "serial-1");
    assert.equal(res.errors, undefined);
    assert.deepEqual(res.data?.addRepairEntry, {
      index: "1",
      address: "10.0.0.1",
      nodename: "",
      serial: "serial-1",
      machineType: "qemu",
      operation: "unreachable",
      status: "QUEUED",
      step: 0,
      stepStatus: "WAITING",
      deleted: false,
      lastTransitionTime: "2026-11-22T05:00:00Z",
      drainBackoffCount: 0,
      drainBackoffExpire: null,
      createdAt: "2026-11-22T05:00:00.250Z",
      source: "operator",
    });
    const one = await k.gql(`{ repairEntry(index: "1") { index history { kind reason status step stepStatus deleted detail } } }`);
    assert.deepEqual(one.data?.repairEntry, {
      index: "1",
      history: [{ kind: "CREATED", reason: "added by an operator", status: "QUEUED", step: 0, stepStatus: "WAITING", deleted: false, detail: null }],
    });
  });

  it("stores an IPv6 address in canonical form and treats an empty serial as none", async () => {
    const res = await add("unhealthy", "ipmi-2.0", "FD00:0:0::0A", "");
    assert.equal(res.data?.addRepairEntry.address, "fd00::a");
    assert.equal(res.data?.addRepairEntry.serial, null);
  });

  const rejections: Array<[string, [string, string, string], string, RegExp]> = [
    ["an address that is not an IP", ["unreachable", "qemu", "10.0.0.256"], "INVALID_ADDRESS", /invalid IP address: "10\.0\.0\.256"/],
    ["a hostname instead of an address", ["unreachable", "qemu", "node1.example"], "INVALID_ADDRESS", /invalid IP address/],
    ["a machine type no procedure lists", ["unreachable", "hp", "10.0.0.9"], "REPAIR_PROCEDURE_NOT_FOUND", /repair procedure not found for machine type "hp"/],
    ["an operation the procedure lacks", ["reboot", "qemu", "10.0.0.9"], "REPAIR_OPERATION_NOT_FOUND", /repair operation "reboot" not found/],
    ["an operation only a later procedure has", ["later-only", "ipmi-2.0", "10.0.0.9"], "REPAIR_OPERATION_NOT_FOUND", /"later-only" not found/],
  ];
  for (const [name, [o, t, a], type, message] of rejections) {
    it(`rejects ${name} with ${type} and changes nothing`, async () => {
      const before = await everything();
      const res = await add(o, t, a);
      assert.equal(res.status, 200);
      assert.equal(res.data, null);
      assert.equal(res.errors?.[0]?.extensions?.type, type);
      assert.equal(res.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
      assert.match(res.errors?.[0]?.message ?? "", message);
      assert.deepEqual(await everything(), before);
    });
  }

  it("rejects malformed variables with a message naming the variable, and changes nothing", async () => {
    const before = await everything();
    const res = await k.gql(ADD, { o: "unreachable", t: "qemu", a: 42 });
    assert.equal(res.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    assert.match(res.errors?.[0]?.message ?? "", /Variable "\$a" got invalid value 42/);
    const missing = await k.gql(ADD, { o: "unreachable", a: "10.0.0.1" });
    assert.match(missing.errors?.[0]?.message ?? "", /Variable "\$t" of required type "String!" was not provided/);
    assert.deepEqual(await everything(), before);
  });

  it("answers NOT_FOUND for an unknown index and INVALID_INDEX for one that is not a number", async () => {
    const cases: Array<[string, string]> = [
      [`{ repairEntry(index: "999") { index } }`, "NOT_FOUND"],
      [`mutation { deleteRepairEntry(index: "999") { index } }`, "NOT_FOUND"],
      [`{ repairEntry(index: "one") { index } }`, "INVALID_INDEX"],
      [`mutation { deleteRepairEntry(index: "-1") { index } }`, "INVALID_INDEX"],
    ];
    for (const [query, type] of cases) {
      const res = await k.gql(query);
      assert.equal(res.errors?.[0]?.extensions?.type, type, query);
    }
  });

  it("marks a deleted entry, keeps listing it, and treats a second delete as a no-op", async () => {
    const index = (await add("unreachable", "qemu", "10.0.1.1")).data?.addRepairEntry.index;
    const first = await k.gql(`mutation($i: ID!) { deleteRepairEntry(index: $i) { index deleted history { kind } } }`, { i: index });
    assert.deepEqual(first.data?.deleteRepairEntry, { index, deleted: true, history: [{ kind: "CREATED" }, { kind: "DELETE_REQUESTED" }] });
    const second = await k.gql(`mutation($i: ID!) { deleteRepairEntry(index: $i) { deleted history { kind } } }`, { i: index });
    assert.deepEqual(second.data?.deleteRepairEntry, { deleted: true, history: [{ kind: "CREATED" }, { kind: "DELETE_REQUESTED" }] });
    const listed = await k.gql(`{ searchRepairEntries(having: { addresses: ["10.0.1.1"] }) { deleted } }`);
    assert.deepEqual(listed.data?.searchRepairEntries, [{ deleted: true }]);
  });

  it("deletes finished or unfinished entries in one request each, and resets back-off", async () => {
    const a = (await add("unreachable", "qemu", "10.0.2.1")).data?.addRepairEntry.index;
    const b = (await add("unreachable", "qemu", "10.0.2.2")).data?.addRepairEntry.index;
    const c = (await add("unreachable", "qemu", "10.0.2.3")).data?.addRepairEntry.index;
    // Play the runner's part through a second connection to the same file, as the step runner will.
    await withSideStore(k, async (side) => {
      await side.transition(Number(a), { status: "succeeded" }, "healthy");
      await side.transition(Number(b), { status: "failed" }, "steps ran out");
      await side.transition(Number(c), { status: "processing", drainBackoffCount: 1, drainBackoffExpire: NOW + 400_000 }, "back-off");
    });

    const reset = await k.gql(`mutation { resetRepairBackoff { index drainBackoffCount drainBackoffExpire history { kind reason } } }`);
    assert.deepEqual(
      reset.data?.resetRepairBackoff.map((e: any) => [e.index, e.drainBackoffCount, e.drainBackoffExpire, e.history.at(-1)]),
      [[c, 0, null, { kind: "BACKOFF_RESET", reason: "drain back-off reset by an operator" }]],
    );

    const finished = await k.gql(`mutation { deleteFinishedRepairEntries { index deleted } }`);
    assert.deepEqual(finished.data?.deleteFinishedRepairEntries, [
      { index: a, deleted: true },
      { index: b, deleted: true },
    ]);
    const unfinished = await k.gql(`mutation { deleteUnfinishedRepairEntries { index } }`);
    const stillUnmarked = ["1", "2", c];
    assert.deepEqual(
      unfinished.data?.deleteUnfinishedRepairEntries.map((e: any) => e.index),
      stillUnmarked,
    );
    assert.deepEqual((await k.gql(`mutation { deleteFinishedRepairEntries { index } }`)).data?.deleteFinishedRepairEntries, []);
  });
});

describe("operator view of an entry", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi({}, { now: () => NOW });
  });
  after(() => k.dispose());

  it("shows the current step's configuration and the step count", async () => {
    await k.gql(`mutation { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: "10.1.0.1") { index } }`);
    const res = await k.gql(
      `{ repairEntry(index: "1") { stepCount currentStep { repairCommand commandTimeoutSeconds commandRetries commandInterval needDrain watchSeconds } } }`,
    );
    assert.deepEqual(res.data?.repairEntry, {
      stepCount: 1,
      currentStep: { repairCommand: ["true"], commandTimeoutSeconds: 30, commandRetries: 0, commandInterval: 0, needDrain: false, watchSeconds: 0 },
    });
  });

  it("shows null step configuration when the procedure is gone from the config", async () => {
    k = await k.restart({ repair: { ...TEST_REPAIR_CONFIG, repairProcedures: [] } }, { now: () => NOW });
    const res = await k.gql(`{ repairEntry(index: "1") { stepCount currentStep { watchSeconds } } }`);
    assert.deepEqual(res.data?.repairEntry, { stepCount: null, currentStep: null });
    k = await k.restart({}, { now: () => NOW });
  });

  it("reads the history of an index after its entry left the queue, and NOT_FOUND for one never used", async () => {
    await withSideStore(k, (side) => side.entries.dequeue(1, () => "dequeued by test", NOW, "test"));
    const res = await k.gql(`{ repairHistory(index: "1") { kind reason } }`);
    assert.deepEqual(res.data?.repairHistory, [
      { kind: "CREATED", reason: "added by an operator" },
      { kind: "DEQUEUED", reason: "dequeued by test" },
    ]);
    assert.equal((await k.gql(`{ repairHistory(index: "42") { kind } }`)).errors?.[0]?.extensions?.type, "NOT_FOUND");
  });
});
