// What the rack grid draws, without the DOM: a column of cells per rack, from every machine or from the counts.
import { REPAIR_COLOURS, STATE_COLOURS, UNKNOWN_STATE_COLOUR } from "./colours.js";
import type { Entry, FleetCounts, Hold, Machine } from "./model.js";

/** One cell: a machine, or (drawn from counts) one of a rack's machines in a state. */
export interface Cell {
  readonly fill: string;
  readonly ring: string | undefined;
  /** What hovering it says. */
  readonly tip: string;
}

/** One rack's column: its cells top to bottom, and what its header counts. */
export interface Column {
  readonly rack: number;
  readonly cells: readonly Cell[];
  /** Its machines in a state the rack limit counts. */
  readonly down: number;
  readonly held: number;
}

/** The states a rack's limit counts (sabakan's unhealthy ones). */
const DOWN_STATES = new Set(["UNHEALTHY", "UNREACHABLE"]);
/** The order a rack's counted machines are drawn in, top first: what needs a look before what does not. */
const COUNTED_ORDER = ["UNREACHABLE", "UNHEALTHY", "RETIRING", "UPDATING", "UNINITIALIZED", "RETIRED", "HEALTHY"];

/** Each machine its cell, by rack and indexInRack, ringed by the entry at its address (or its hold). */
export function columnsOfMachines(machines: ReadonlyMap<string, Machine>, entries: ReadonlyMap<string, Entry>, holds: ReadonlyMap<string, Hold>): Column[] {
  const racks = new Map<number, Machine[]>();
  for (const machine of machines.values()) {
    const rack = racks.get(machine.rack) ?? [];
    rack.push(machine);
    racks.set(machine.rack, rack);
  }
  return [...racks]
    .sort(([a], [b]) => a - b)
    .map(([rack, inRack]) => {
      const cells = inRack
        .sort((a, b) => a.indexInRack - b.indexInRack)
        .map((machine): Cell => {
          const entry = machine.address === null ? undefined : entries.get(machine.address);
          const held = machine.address !== null && holds.has(machine.address);
          const repair = entry ? `, repair #${entry.index} ${entry.operation} ${entry.status}` : "";
          return {
            fill: STATE_COLOURS[machine.state] ?? UNKNOWN_STATE_COLOUR,
            ring: entry ? REPAIR_COLOURS[entry.status] : held ? REPAIR_COLOURS.HELD : undefined,
            tip: `${machine.serial} (rack ${machine.rack}, ${machine.address ?? "no address"}): ${machine.state}${repair}${held ? ", held" : ""}`,
          };
        });
      const down = inRack.filter((m) => DOWN_STATES.has(m.state)).length;
      const held = inRack.filter((m) => m.address !== null && holds.has(m.address)).length;
      return { rack, cells, down, held };
    });
}

/**
 * Each rack's machines drawn from its counts: a cell a machine, the states in COUNTED_ORDER, the first ones ringed as
 * many as are in the repair queue, then as many as are held; every cell of a rack says the rack's counts.
 */
export function columnsOfCounts(counts: FleetCounts): Column[] {
  return counts.racks.map((r) => {
    const states = [...r.states].sort((a, b) => rank(a.state) - rank(b.state));
    const tip = `rack ${r.rack}: ${r.machines} machines, ${states.map((s) => `${s.machines} ${s.state}`).join(", ")}; ${r.repairing} in the repair queue, ${r.held} held`;
    const cells: Cell[] = [];
    for (const { state, machines } of states) {
      for (let i = 0; i < machines; i++) {
        const n = cells.length;
        const ring = n < r.repairing ? REPAIR_COLOURS.QUEUED : n < r.repairing + r.held ? REPAIR_COLOURS.HELD : undefined;
        cells.push({ fill: STATE_COLOURS[state] ?? UNKNOWN_STATE_COLOUR, ring, tip });
      }
    }
    const down = states.filter((s) => DOWN_STATES.has(s.state)).reduce((n, s) => n + s.machines, 0);
    return { rack: r.rack, cells, down, held: r.held };
  });
}

function rank(state: string): number {
  const at = COUNTED_ORDER.indexOf(state);
  return at < 0 ? COUNTED_ORDER.length : at;
}
