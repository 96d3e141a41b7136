import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { machineRepairStatuses } from "../../../src/domain/stats/machine-repair-status.js";
import type { RepairStatus } from "../../../src/domain/queue/repair-entry.js";

type Entry = { address: string; status: RepairStatus };

/** The addresses with the statuses at 1, the rest expected at 0 for each of CKE's four statuses. */
const ones = (nodes: string[], entries: Entry[]) => {
  const series = machineRepairStatuses(nodes, entries);
  const byAddress = new Map<string, string[]>();
  for (const s of series) {
    const list = byAddress.get(s.address) ?? [];
    if (s.value === 1) list.push(s.status);
    byAddress.set(s.address, list);
  }
  return { series, byAddress: Object.fromEntries(byAddress) };
};

describe("machineRepairStatuses (CKE's BuildMachineRepairStatus)", () => {
  const cases: Array<{ name: string; nodes: string[]; entries: Entry[]; want: Record<string, string[]> }> = [
    { name: "no nodes, no entries", nodes: [], entries: [], want: {} },
    { name: "a node without entries has every status at 0", nodes: ["10.0.0.1"], entries: [], want: { "10.0.0.1": [] } },
    { name: "an entry of a machine that is not a node", nodes: [], entries: [{ address: "10.0.0.9", status: "queued" }], want: { "10.0.0.9": ["queued"] } },
    {
      name: "several entries of one machine: 1 for each status any has",
      nodes: ["10.0.0.1", "10.0.0.2"],
      entries: [
        { address: "10.0.0.1", status: "failed" },
        { address: "10.0.0.1", status: "queued" },
        { address: "10.0.0.1", status: "failed" },
      ],
      want: { "10.0.0.1": ["queued", "failed"], "10.0.0.2": [] },
    },
    {
      name: "a node with an entry is listed once",
      nodes: ["10.0.0.1"],
      entries: [{ address: "10.0.0.1", status: "succeeded" }],
      want: { "10.0.0.1": ["succeeded"] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { series, byAddress } = ones(c.nodes, c.entries);
      assert.deepEqual(byAddress, c.want);
      assert.equal(series.length, Object.keys(c.want).length * 4, "four statuses per address, as CKE's");
    });
  }
});
