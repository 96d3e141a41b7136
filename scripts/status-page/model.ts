// What the status page knows, as kintsugi's API sends it: the shapes of the documents in queries.ts.

export interface Machine {
  readonly serial: string;
  readonly rack: number;
  readonly indexInRack: number;
  readonly address: string | null;
  state: string;
}

export interface RepairWait {
  readonly kind: string;
  readonly message: string;
  readonly until: string | null;
}

export interface Entry {
  readonly index: string;
  readonly address: string;
  readonly nodename: string;
  readonly machineType: string;
  readonly operation: string;
  readonly status: string;
  readonly step: number;
  readonly stepStatus: string;
  readonly stepCount: number | null;
  readonly deleted: boolean;
  readonly createdAt: string;
  readonly lastTransitionTime: string | null;
  /** Why a FAILED entry failed (the failed command's stderr tail included, escaped by kintsugi); null otherwise. */
  readonly failure: string | null;
  waitingFor: RepairWait | null;
}

export interface Hold {
  readonly address: string;
  readonly reason: string;
  readonly setBy: string;
  readonly until: string | null;
  readonly source: string;
}

export interface Skip {
  readonly serial: string;
  readonly address: string | null;
  readonly state: string;
  readonly reason: string;
  readonly kind: string;
  readonly held: boolean;
}

/** How many machines a poll skipped for one reason. */
export interface KindCount {
  readonly kind: string;
  readonly machines: number;
}

/** One rack's machines by state, and how many are in the repair queue or held (`machineStateCounts`). */
export interface RackCounts {
  readonly rack: number;
  readonly machines: number;
  readonly states: ReadonlyArray<{ readonly state: string; readonly machines: number }>;
  readonly repairing: number;
  readonly held: number;
}

/** The data center counted by rack and state: what the grid draws of a fleet of more than DETAIL_LIMIT machines. */
export interface FleetCounts {
  readonly machines: number;
  readonly racks: readonly RackCounts[];
}

export interface Outcome {
  readonly sequence: string;
  readonly time: string;
  readonly trigger: string;
  readonly machinesSeen: number;
  readonly enqueued: ReadonlyArray<{ readonly index: string; readonly address: string }>;
  /** A sample of the skipped machines (SKIP_SAMPLE): `skippedTotal` and `skippedByKind` count them all. */
  readonly skipped: readonly Skip[];
  readonly skippedTotal: number;
  readonly skippedByKind: readonly KindCount[];
  readonly shortCircuit: { readonly existingEntries: number; readonly candidates: number; readonly limit: number } | null;
  readonly error: string | null;
}

/** A service kintsugi calls, as kintsugi's calls to it went (the document's `dependencies`). */
export interface Dependency {
  readonly name: string;
  readonly up: boolean;
  readonly downSince: string | null;
  readonly failures: number;
  readonly error: string | null;
}

/** Everything the page shows; replaced by a snapshot, then kept current by subscription events. */
export class StatusModel {
  /** Every machine, while the data center has at most DETAIL_LIMIT; else empty, and `counts` says what there is. */
  machines = new Map<string, Machine>();
  /** The counts by rack and state of a larger data center; null while `machines` holds every machine. */
  counts: FleetCounts | null = null;
  entries = new Map<string, Entry>();
  holds = new Map<string, Hold>();
  /** Newest first. */
  outcomes: Outcome[] = [];

  /** By name, in the order kintsugi lists them. */
  dependencies = new Map<string, Dependency>();

  static readonly OUTCOMES_KEPT = 5;

  /**
   * Each part is replaced on its own: a panel whose read failed keeps what it last knew. The racks are either every
   * machine (`machines`) or the counts (`counts`): one replaces the other.
   */
  replace(snapshot: { machines?: Machine[]; counts?: FleetCounts; entries?: Entry[]; holds?: Hold[]; outcomes?: Outcome[] }): void {
    if (snapshot.machines) {
      this.machines = new Map(snapshot.machines.map((m) => [m.serial, m]));
      this.counts = null;
    }
    if (snapshot.counts) {
      this.counts = snapshot.counts;
      this.machines = new Map();
    }
    if (snapshot.entries) this.entries = new Map(snapshot.entries.map((e) => [e.index, e]));
    if (snapshot.holds) this.holds = new Map(snapshot.holds.map((h) => [h.address, h]));
    if (snapshot.outcomes) this.outcomes = [...snapshot.outcomes].sort((a, b) => Number(b.sequence) - Number(a.sequence)).slice(0, StatusModel.OUTCOMES_KEPT);
  }

  /** A dependency's status, read or told by an event. */
  dependency(status: Dependency): void {
    this.dependencies.set(status.name, status);
  }

  upsertEntry(entry: Entry): void {
    this.entries.set(entry.index, entry);
  }

  machineState(serial: string, state: string): void {
    const machine = this.machines.get(serial);
    if (machine) machine.state = state;
  }

  hold(kind: string, hold: Hold): void {
    if (kind === "SET") this.holds.set(hold.address, hold);
    else this.holds.delete(hold.address);
  }

  outcome(outcome: Outcome): void {
    this.outcomes = [outcome, ...this.outcomes.filter((o) => o.sequence !== outcome.sequence)].slice(0, StatusModel.OUTCOMES_KEPT);
  }

  /** repairWaits sends the whole list: an unfinished entry not in it waits for nothing. */
  waits(list: ReadonlyArray<{ readonly index: string; readonly waitingFor: RepairWait }>): void {
    const byIndex = new Map(list.map((w) => [w.index, w.waitingFor]));
    for (const entry of this.entries.values()) entry.waitingFor = byIndex.get(entry.index) ?? null;
  }

  /** The entry a machine's address is in, the unfinished one first. */
  entryByAddress(): Map<string, Entry> {
    const byAddress = new Map<string, Entry>();
    for (const entry of this.entries.values()) {
      if (entry.deleted && !isUnfinished(entry)) continue;
      const known = byAddress.get(entry.address);
      const better = !known || (isUnfinished(entry) !== isUnfinished(known) ? isUnfinished(entry) : Number(entry.index) > Number(known.index));
      if (better) byAddress.set(entry.address, entry);
    }
    return byAddress;
  }
}

export function isUnfinished(entry: Entry): boolean {
  return entry.status === "QUEUED" || entry.status === "PROCESSING";
}
