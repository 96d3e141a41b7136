import { parseAddress } from "../shared/address.js";
import { MACHINE_STATES, type MachineState } from "./machine-params.js";

/** What the counts read of one machine sabakan lists: its rack, its state and its first IPv4 (its repair address). */
export interface FleetMachine {
  readonly rack: number;
  readonly state: MachineState;
  /** Canonical; null when it has none (or sabakan's first is not an address). */
  readonly address: string | null;
}

/** sabakan's machines as the counts read them, and how many of its list could not be read. */
export interface FleetStates {
  readonly machines: readonly FleetMachine[];
  readonly unreadable: number;
}

/** How many machines of a rack are in one state. */
export interface StateCount {
  readonly state: MachineState;
  readonly machines: number;
}

/** One rack: its machines by state, and how many of them are in the repair queue or held. */
export interface RackStateCount {
  readonly rack: number;
  readonly machines: number;
  /** The states with machines, in MACHINE_STATES' order. */
  readonly states: readonly StateCount[];
  readonly repairing: number;
  readonly held: number;
}

/** The fleet counted by rack and state. */
export interface MachineStateCounts {
  /** Every machine counted. */
  readonly machines: number;
  /** Machines of sabakan's list left out: no rack number, or a state sabakan does not have. */
  readonly unreadable: number;
  /** By rack number. */
  readonly racks: readonly RackStateCount[];
}

/**
 * Reads sabakan's `searchMachines { spec { rack ipv4 } status { state } }` list: a machine whose rack is not a whole
 * number from 0 or whose state is not one of sabakan's is counted as unreadable, never guessed at.
 */
export function fleetStatesOf(listed: unknown): FleetStates {
  const machines: FleetMachine[] = [];
  let unreadable = 0;
  for (const item of Array.isArray(listed) ? listed : []) {
    const m = item as { spec?: { rack?: unknown; ipv4?: unknown }; status?: { state?: unknown } } | null;
    const rack = m?.spec?.rack;
    const state = m?.status?.state;
    if (typeof rack !== "number" || !Number.isSafeInteger(rack) || rack < 0 || !(MACHINE_STATES as readonly unknown[]).includes(state)) {
      unreadable++;
      continue;
    }
    const first = Array.isArray(m?.spec?.ipv4) ? (m.spec.ipv4 as unknown[])[0] : undefined;
    const parsed = typeof first === "string" ? parseAddress(first) : null;
    machines.push({ rack, state: state as MachineState, address: parsed?.ok ? parsed.address : null });
  }
  return { machines, unreadable };
}

/**
 * The fleet counted by rack and state, each rack with its machines whose address has an unfinished repair entry
 * (`repairing`) or a hold in force (`held`), both sets of canonical addresses. The answer's size grows with the racks,
 * not the machines: what the status page draws of a data center.
 */
export function rackStateCounts(fleet: FleetStates, repairing: ReadonlySet<string>, held: ReadonlySet<string>): MachineStateCounts {
  const racks = new Map<number, { machines: number; states: number[]; repairing: number; held: number }>();
  for (const m of fleet.machines) {
    let rack = racks.get(m.rack);
    if (rack === undefined) {
      rack = { machines: 0, states: MACHINE_STATES.map(() => 0), repairing: 0, held: 0 };
      racks.set(m.rack, rack);
    }
    rack.machines++;
    rack.states[MACHINE_STATES.indexOf(m.state)]!++;
    if (m.address !== null && repairing.has(m.address)) rack.repairing++;
    if (m.address !== null && held.has(m.address)) rack.held++;
  }
  return {
    machines: fleet.machines.length,
    unreadable: fleet.unreadable,
    racks: [...racks]
      .sort(([a], [b]) => a - b)
      .map(([rack, r]) => ({
        rack,
        machines: r.machines,
        states: MACHINE_STATES.flatMap((state, i) => (r.states[i]! > 0 ? [{ state, machines: r.states[i]! }] : [])),
        repairing: r.repairing,
        held: r.held,
      })),
  };
}
