import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { REPAIR_COLOURS, STATE_COLOURS } from "../../scripts/status-page/colours.js";
import type { Entry, Hold, Machine } from "../../scripts/status-page/model.js";
import { columnsOfCounts, columnsOfMachines, type Column } from "../../scripts/status-page/rack-columns.js";

const machine = (serial: string, rack: number, indexInRack: number, state: string, address: string | null): Machine => ({
  serial,
  rack,
  indexInRack,
  state,
  address,
});

describe("the rack grid's columns", () => {
  it("machine by machine: by rack and index, each ringed by its own entry (or hold), the header's counts", () => {
    const entry = { index: "7", operation: "unreachable", status: "PROCESSING" } as Entry;
    const hold = { address: "10.0.0.2" } as Hold;
    const columns = columnsOfMachines(
      new Map([
        ["b", machine("b", 1, 2, "UNREACHABLE", "10.0.0.1")],
        ["a", machine("a", 1, 1, "HEALTHY", "10.0.0.2")],
        ["c", machine("c", 0, 1, "HEALTHY", null)],
      ]),
      new Map([["10.0.0.1", entry]]),
      new Map([["10.0.0.2", hold]]),
    );
    assert.deepEqual(columns, [
      { rack: 0, cells: [{ fill: STATE_COLOURS.HEALTHY!, ring: undefined, tip: "c (rack 0, no address): HEALTHY" }], down: 0, held: 0 },
      {
        rack: 1,
        cells: [
          { fill: STATE_COLOURS.HEALTHY!, ring: REPAIR_COLOURS.HELD!, tip: "a (rack 1, 10.0.0.2): HEALTHY, held" },
          { fill: STATE_COLOURS.UNREACHABLE!, ring: REPAIR_COLOURS.PROCESSING!, tip: "b (rack 1, 10.0.0.1): UNREACHABLE, repair #7 unreachable PROCESSING" },
        ],
        down: 1,
        held: 1,
      },
    ] satisfies Column[]);
  });

  it("from counts: a cell a machine, the unhealthy first, as many ringed as are in the queue, then held", () => {
    const [column] = columnsOfCounts({
      machines: 5,
      racks: [
        {
          rack: 4,
          machines: 5,
          states: [
            { state: "HEALTHY", machines: 3 },
            { state: "UNHEALTHY", machines: 1 },
            { state: "UNREACHABLE", machines: 1 },
          ],
          repairing: 1,
          held: 2,
        },
      ],
    });
    const tip = "rack 4: 5 machines, 1 UNREACHABLE, 1 UNHEALTHY, 3 HEALTHY; 1 in the repair queue, 2 held";
    assert.deepEqual(column, {
      rack: 4,
      cells: [
        { fill: STATE_COLOURS.UNREACHABLE!, ring: REPAIR_COLOURS.QUEUED!, tip },
        { fill: STATE_COLOURS.UNHEALTHY!, ring: REPAIR_COLOURS.HELD!, tip },
        { fill: STATE_COLOURS.HEALTHY!, ring: REPAIR_COLOURS.HELD!, tip },
        { fill: STATE_COLOURS.HEALTHY!, ring: undefined, tip },
        { fill: STATE_COLOURS.HEALTHY!, ring: undefined, tip },
      ],
      down: 2,
      held: 2,
    } satisfies Column);
  });
});
