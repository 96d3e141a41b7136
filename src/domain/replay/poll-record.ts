import { parseAddress } from "../shared/address.js";
import type { IntakeDecision, IntakeInput } from "../intake/auto-repair-intake.js";
import type { MachineHold } from "../holds/machine-holds.js";
import { MACHINE_STATES, type MachineState } from "../sabakan/machine-params.js";
import type { NodeStanding, SabakanMachine } from "../sabakan/sabakan-machine.js";

/** The standings by code, so that a recorded machine's standing costs one digit. */
const STANDINGS: readonly NodeStanding[] = ["not-a-node", "node", "rebooting"];

/**
 * sabakan's answer as decideIntake reads it, in columns (index i of every array is machine i, in the answer's
 * order): the first IPv4 as sabakan spelled it (null: none), the rack, the machine type as an index into `types`,
 * the state as an index into MACHINE_STATES, the whole seconds in that state, and the address's standing in
 * Kubernetes as an index into ["not-a-node", "node", "rebooting"]. Columns and the type dictionary keep a
 * 10,000-machine answer well under a megabyte of JSON; the seconds are floored, which changes no decision
 * because every wait is a whole number of seconds (d < w iff floor(d) < w for an integer w).
 */
export interface RecordedMachines {
  readonly serial: readonly string[];
  readonly ipv4: ReadonlyArray<string | null>;
  readonly rack: readonly number[];
  readonly types: readonly string[];
  readonly type: readonly number[];
  readonly state: readonly number[];
  readonly seconds: readonly number[];
  readonly standing: readonly number[];
}

/**
 * Everything one sabakan poll's intake read, and what it did: the replay's input. decideIntake reads only the
 * machines of sabakan's answer (by default the UNHEALTHY and UNREACHABLE ones: a healthy data center costs a few
 * bytes a poll), the addresses of the persisting entries, the holds of those machines and three constraints.
 */
export interface PollRecord {
  /** Milliseconds since the epoch: the poll's `now`. */
  readonly time: number;
  readonly machines: RecordedMachines;
  /** The address of every entry persisting in the queue when the poll decided (their count is the queue's size). */
  readonly queue: readonly string[];
  /** The canonical addresses of the answered machines that were held. */
  readonly held: readonly string[];
  readonly constraints: IntakeInput["constraints"];
  /** The addresses the poll enqueued. */
  readonly enqueued: readonly string[];
  /** Whether maximum-repair-queue-entries stopped the poll (enqueued nothing, all or nothing). */
  readonly shortCircuited: boolean;
}

/** The record of one poll's intake: its input (as decideIntake read it) and its decision, at `now`. */
export function recordPoll(input: IntakeInput, decision: IntakeDecision, now: number): PollRecord {
  const types: string[] = [];
  const typeIndex = new Map<string, number>();
  const indexOfType = (t: string): number => {
    let i = typeIndex.get(t);
    if (i === undefined) {
      i = types.length;
      types.push(t);
      typeIndex.set(t, i);
    }
    return i;
  };
  const ms = input.machines;
  const answered = new Set<string>();
  const machines: RecordedMachines = {
    serial: ms.map((m) => m.serial),
    ipv4: ms.map((m) => m.ipv4[0] ?? null),
    rack: ms.map((m) => m.rack),
    type: ms.map((m) => indexOfType(m.bmcType)),
    types,
    state: ms.map((m) => MACHINE_STATES.indexOf(m.state)),
    seconds: ms.map((m) => Math.max(0, Math.floor(m.durationSeconds))),
    standing: ms.map((m) => {
      const address = canonical(m.ipv4[0] ?? null);
      if (address === null) return 0;
      answered.add(address);
      return STANDINGS.indexOf(input.nodes.get(address) ?? "not-a-node");
    }),
  };
  const held = [...(input.holds?.keys() ?? [])].filter((a) => answered.has(a));
  return {
    time: now,
    machines,
    queue: input.entries.map((e) => e.address),
    held: held.sort(),
    constraints: {
      maximumRepairQueueEntries: input.constraints.maximumRepairQueueEntries,
      waitSecondsToRepairRebooting: input.constraints.waitSecondsToRepairRebooting,
      maximumUnhealthyMachinesPerRack: input.constraints.maximumUnhealthyMachinesPerRack,
    },
    enqueued: decision.enqueue.map((e) => e.address),
    shortCircuited: decision.shortCircuit !== null,
  };
}

/** The answered machines of a record, as decideIntake takes them (fields it does not read are neutral). */
export function recordedMachines(record: PollRecord): SabakanMachine[] {
  const m = record.machines;
  return m.serial.map((serial, i) => {
    const first = m.ipv4[i];
    return {
      serial,
      rack: m.rack[i] ?? 0,
      indexInRack: 0,
      role: "",
      ipv4: first === null || first === undefined ? [] : [first],
      bmcType: m.types[m.type[i] ?? 0] ?? "",
      state: (MACHINE_STATES[m.state[i] ?? 0] ?? "UNINITIALIZED") as MachineState,
      durationSeconds: m.seconds[i] ?? 0,
      stateSince: record.time - (m.seconds[i] ?? 0) * 1000,
      registerDate: 0,
      retireDate: 0,
      labels: {},
    };
  });
}

/** The standing of each answered address in Kubernetes, as the poll saw it. */
export function recordedStandings(record: PollRecord): Map<string, NodeStanding> {
  const standings = new Map<string, NodeStanding>();
  record.machines.ipv4.forEach((first, i) => {
    const address = canonical(first);
    if (address !== null) standings.set(address, STANDINGS[record.machines.standing[i] ?? 0] ?? "not-a-node");
  });
  return standings;
}

/** The rack and machine type of each answered address, as pacing reads them. */
export function recordedPlaces(record: PollRecord): Map<string, { readonly rack: number; readonly machineType: string }> {
  const places = new Map<string, { rack: number; machineType: string }>();
  record.machines.ipv4.forEach((first, i) => {
    const address = canonical(first);
    if (address !== null) places.set(address, { rack: record.machines.rack[i] ?? 0, machineType: record.machines.types[record.machines.type[i] ?? 0] ?? "" });
  });
  return places;
}

/** The recorded holds, as holds (who set them and why is not kept: the replay tells held from not held). */
export function recordedHolds(record: PollRecord): Map<string, MachineHold> {
  return new Map(
    record.held.map((address) => [
      address,
      { address, reason: "held when recorded", setBy: "recorded", setAt: record.time, until: null, source: "api" as const },
    ]),
  );
}

/** An address in canonical form, or null when there is none or it is not an address (decideIntake skips it). */
function canonical(first: string | null): string | null {
  if (first === null) return null;
  const parsed = parseAddress(first);
  return parsed.ok ? parsed.address : null;
}
