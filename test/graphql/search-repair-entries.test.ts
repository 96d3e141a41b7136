import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { NOW } from "../support/fixtures.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { withSideStore } from "../support/side-store.js";

// index: address, type, operation, final status
const FLEET: Array<[string, string, string, "queued" | "processing" | "succeeded" | "failed"]> = [
  ["10.0.0.1", "qemu", "unreachable", "queued"], // 1
  ["10.0.0.2", "qemu", "unhealthy", "processing"], // 2
  ["10.0.0.3", "ipmi-2.0", "unreachable", "succeeded"], // 3
  ["10.0.0.4", "ipmi-2.0", "unhealthy", "failed"], // 4
  ["fd00::5", "qemu", "unreachable", "failed"], // 5
];

const CASES: Array<{ name: string; having?: unknown; notHaving?: unknown; want: number[] }> = [
  { name: "no arguments: every entry in index order", want: [1, 2, 3, 4, 5] },
  { name: "null having and notHaving: no constraint", having: null, notHaving: null, want: [1, 2, 3, 4, 5] },
  {
    name: "empty lists: no constraint",
    having: { statuses: [], addresses: [], machineTypes: [], operations: [] },
    notHaving: { statuses: [] },
    want: [1, 2, 3, 4, 5],
  },
  { name: "one status", having: { statuses: ["FAILED"] }, want: [4, 5] },
  { name: "values within a list are OR'd", having: { statuses: ["QUEUED", "SUCCEEDED"] }, want: [1, 3] },
  { name: "fields are AND'd", having: { machineTypes: ["qemu"], operations: ["unreachable"] }, want: [1, 5] },
  { name: "AND of two ORs", having: { statuses: ["QUEUED", "FAILED"], machineTypes: ["ipmi-2.0"] }, want: [4] },
  { name: "notHaving excludes", notHaving: { statuses: ["SUCCEEDED", "FAILED"] }, want: [1, 2] },
  { name: "any matching notHaving field excludes (as sabakan)", notHaving: { machineTypes: ["ipmi-2.0"], operations: ["unhealthy"] }, want: [1, 5] },
  { name: "having and notHaving together", having: { machineTypes: ["qemu"] }, notHaving: { statuses: ["FAILED"] }, want: [1, 2] },
  { name: "the same field in both: notHaving wins", having: { statuses: ["FAILED"] }, notHaving: { statuses: ["FAILED"] }, want: [] },
  { name: "an address", having: { addresses: ["10.0.0.3"] }, want: [3] },
  { name: "an IPv6 address in another spelling", having: { addresses: ["FD00:0::5"] }, want: [5] },
  { name: "a value nobody has", having: { operations: ["reboot"] }, want: [] },
  { name: "deleted entries are still listed", having: { addresses: ["10.0.0.1", "10.0.0.2"] }, want: [1, 2] },
];

describe("searchRepairEntries filters as sabakan's MachineParams", () => {
  let k: TestKintsugi;

  before(async () => {
    k = await startTestKintsugi({}, { now: () => NOW });
    for (const [address, type, operation] of FLEET) {
      const res = await k.gql(`mutation($a: IPAddress!, $t: String!, $o: String!) { addRepairEntry(address: $a, machineType: $t, operation: $o) { index } }`, {
        a: address,
        t: type,
        o: operation,
      });
      assert.equal(res.errors, undefined);
    }
    await withSideStore(k, async (side) => {
      for (const [i, [, , , status]] of FLEET.entries()) await side.transition(i + 1, { status });
    });
    await k.gql(`mutation { deleteRepairEntry(index: "2") { index } }`);
  });
  after(() => k.dispose());

  for (const c of CASES) {
    it(c.name, async () => {
      const res = await k.gql(`query($h: RepairEntryParams, $n: RepairEntryParams) { searchRepairEntries(having: $h, notHaving: $n) { index } }`, {
        h: c.having,
        n: c.notHaving,
      });
      assert.equal(res.errors, undefined);
      assert.deepEqual(
        res.data?.searchRepairEntries.map((e: { index: string }) => Number(e.index)),
        c.want,
      );
    });
  }

  it("rejects an address filter that is not an address with INVALID_ADDRESS", async () => {
    const res = await k.gql(`{ searchRepairEntries(notHaving: { addresses: ["nope"] }) { index } }`);
    assert.equal(res.errors?.[0]?.extensions?.type, "INVALID_ADDRESS");
  });

  it("rejects an unknown status with Apollo's validation error", async () => {
    const res = await k.gql(`{ searchRepairEntries(having: { statuses: [BROKEN] }) { index } }`);
    assert.equal(res.errors?.[0]?.extensions?.code, "GRAPHQL_VALIDATION_FAILED");
    assert.match(res.errors?.[0]?.message ?? "", /BROKEN/);
  });
});
