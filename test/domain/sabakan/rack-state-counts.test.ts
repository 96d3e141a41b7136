import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fleetStatesOf, rackStateCounts, type FleetStates, type MachineStateCounts } from "../../../src/domain/sabakan/rack-state-counts.js";

/** A machine as sabakan's `searchMachines { spec { rack ipv4 } status { state } }` lists it. */
const listed = (rack: unknown, state: unknown, ipv4: unknown = ["10.0.0.1"]) => ({ spec: { rack, ipv4 }, status: { state } });

describe("fleetStatesOf: sabakan's list as the counts read it, hostile values left out", () => {
  const cases: ReadonlyArray<{ name: string; answer: unknown; fleet: FleetStates }> = [
    { name: "no list at all", answer: null, fleet: { machines: [], unreadable: 0 } },
    {
      name: "a machine's first IPv4 is its address, canonical; none or a non-address is null",
      answer: [listed(3, "HEALTHY", ["2001:DB8:0::1", "10.0.0.2"]), listed(3, "UNHEALTHY", []), listed(4, "RETIRED", ["not an address"])],
      fleet: {
        machines: [
          { rack: 3, state: "HEALTHY", address: "2001:db8::1" },
          { rack: 3, state: "UNHEALTHY", address: null },
          { rack: 4, state: "RETIRED", address: null },
        ],
        unreadable: 0,
      },
    },
    {
      name: "no whole rack number from 0, or a state sabakan does not have: unreadable",
      answer: [listed(-1, "HEALTHY"), listed(1.5, "HEALTHY"), listed("7", "HEALTHY"), listed(2, "BROKEN"), listed(2, null), null, "x", { spec: null }],
      fleet: { machines: [], unreadable: 8 },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(fleetStatesOf(c.answer), c.fleet));
});

describe("rackStateCounts: the fleet by rack and state, with each rack's machines in the queue and held", () => {
  const fleet: FleetStates = {
    machines: [
      { rack: 2, state: "HEALTHY", address: "10.0.2.1" },
      { rack: 0, state: "UNREACHABLE", address: "10.0.0.1" },
      { rack: 0, state: "HEALTHY", address: "10.0.0.2" },
      { rack: 0, state: "UNREACHABLE", address: "10.0.0.3" },
      { rack: 2, state: "UNHEALTHY", address: null },
    ],
    unreadable: 1,
  };
  const cases: ReadonlyArray<{ name: string; repairing: string[]; held: string[]; counts: MachineStateCounts }> = [
    {
      name: "racks by number, states in sabakan's order, the queue and holds matched by address",
      repairing: ["10.0.0.1", "10.9.9.9"],
      held: ["10.0.0.1", "10.0.2.1"],
      counts: {
        machines: 5,
        unreadable: 1,
        racks: [
          {
            rack: 0,
            machines: 3,
            states: [
              { state: "HEALTHY", machines: 1 },
              { state: "UNREACHABLE", machines: 2 },
            ],
            repairing: 1,
            held: 1,
          },
          {
            rack: 2,
            machines: 2,
            states: [
              { state: "HEALTHY", machines: 1 },
              { state: "UNHEALTHY", machines: 1 },
            ],
            repairing: 0,
            held: 1,
          },
        ],
      },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(rackStateCounts(fleet, new Set(c.repairing), new Set(c.held)), c.counts));

  it("nothing listed: no racks", () =>
    assert.deepEqual(rackStateCounts({ machines: [], unreadable: 0 }, new Set(), new Set()), { machines: 0, unreadable: 0, racks: [] }));
});
