// The rack grid's reads: the counts by rack and state, and every machine of a data center of at most DETAIL_LIMIT.
import type { RequestError } from "./connection.js";
import type { FleetCounts, Machine, StatusModel } from "./model.js";
import { DETAIL_LIMIT, READS } from "./queries.js";

type SabakanMachineRow = { spec: { serial: string; rack: number; indexInRack: number; ipv4: string[] }; status: { state: string } };

const toMachine = (m: SabakanMachineRow): Machine => ({
  serial: m.spec.serial,
  rack: m.spec.rack,
  indexInRack: m.spec.indexInRack,
  address: m.spec.ipv4[0] ?? null,
  state: m.status.state,
});

/** How long after an event the counts are read again: the events of a burst cost one read. */
const RECOUNT_MS = 2_000;

/** Reads the racks' panel: `read` runs a query for it (noting its failure for the panel); `changed` draws again. */
export function rackReads(
  model: StatusModel,
  read: <T>(document: string, use: (data: T) => void) => Promise<RequestError | null>,
  changed: () => void,
): { readRacks: () => Promise<RequestError | null>; recount: () => void } {
  let recountTimer: ReturnType<typeof setTimeout> | null = null;

  /**
   * The racks: their counts by rack and state, then every machine when the data center has at most DETAIL_LIMIT (a
   * larger one is drawn from the counts: its machines' list would cost kintsugi and the browser ten times as much).
   */
  async function readRacks(): Promise<RequestError | null> {
    const got: { counts: FleetCounts | null } = { counts: null };
    const failed = await read<{ machineStateCounts: FleetCounts }>(READS.counts, (d) => (got.counts = d.machineStateCounts));
    if (failed !== null || got.counts === null) return failed;
    if (got.counts.machines > DETAIL_LIMIT) {
      model.replace({ counts: got.counts });
      return null;
    }
    return read<{ searchMachines: SabakanMachineRow[] }>(READS.machines, (d) => model.replace({ machines: d.searchMachines.map(toMachine) }));
  }

  /**
   * Drawn from counts, the racks cannot apply an event themselves (it names a machine or an address, not its rack):
   * they are read again a moment after one that may change them. Drawn machine by machine, the events apply as they come.
   */
  function recount(): void {
    if (model.counts === null || recountTimer !== null) return;
    recountTimer = setTimeout(() => {
      recountTimer = null;
      void readRacks().then(changed);
    }, RECOUNT_MS);
  }

  return { readRacks, recount };
}
