// The query shapes that a viewer token could send to make kintsugi spend without bound, and CKE's own
// query, shared by the cost model's unit tests and the tests against a real `kintsugi serve` at a data center's size.

/** Every field of sabakan's Machine. */
export const EVERY_MACHINE_FIELD =
  "spec { serial labels { name value } rack indexInRack role ipv4 registerDate retireDate bmc { bmcType ipv4 } } status { state timestamp duration } info { network { ipv4 { address netmask maskbits gateway } } bmc { ipv4 { address netmask maskbits gateway } } }";

/** The query CKE sends sabakan (cybozu-go/cke sabakan/query.go, GraphQLQuery), which kintsugi's gateway serves unchanged. */
export const CKE_SEARCH_MACHINES = `query ckeSearch($having: MachineParams = null, $notHaving: MachineParams = { roles: ["boot"] states: [RETIRED] }) {
  searchMachines(having: $having, notHaving: $notHaving) {
    spec { serial labels { name value } rack indexInRack role ipv4 registerDate retireDate bmc { bmcType } }
    status { state duration }
  }
}`;

const aliased = (count: number, field: string) => Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(" ");

/** Each abuse shape with its estimate over a fleet of 10,000 machines. */
export const ABUSE_SHAPES: ReadonlyArray<{ readonly name: string; readonly query: string; readonly estimate: number }> = [
  { name: "30 aliased searchMachines with every field", query: `{ ${aliased(30, `searchMachines { ${EVERY_MACHINE_FIELD} }`)} }`, estimate: 30 * 10_000 * 113 },
  {
    name: "autoRepairOutcomes { skipped } five times over the 1,000 kept outcomes",
    query: `{ ${aliased(5, "autoRepairOutcomes { skipped { serial address state reason kind held rack } }")} }`,
    estimate: 5 * 1_000 * (1 + 1_000 * 8),
  },
  {
    name: "30 aliases of the join RepairEntry.machine with every field",
    query: `{ searchRepairEntries { ${aliased(30, `machine { ${EVERY_MACHINE_FIELD} }`)} } }`,
    estimate: 10_000 * (1 + 30 * 113) + 30 * 10_000 * 113,
  },
];
