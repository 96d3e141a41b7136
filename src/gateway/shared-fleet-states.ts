import { fleetStatesOf, type FleetStates } from "../domain/sabakan/rack-state-counts.js";
import { ask, ForwardedSabakanError, type SabakanAsker } from "./sabakan-forwarder.js";

/** How long one read of the fleet's states answers every viewer (the status page reads them again on events). */
export const FLEET_STATES_MAX_AGE_MS = 5_000;

/** The least of a machine the counts read: a tenth of what the status page's rack grid asked for each machine. */
const DOCUMENT = "query { searchMachines { spec { rack ipv4 } status { state } } }";

/**
 * sabakan's machines as `machineStateCounts` reads them, shared by every request: one search at a time, and its answer
 * reused for {@link FLEET_STATES_MAX_AGE_MS} (or until a state change made through kintsugi, see `forget`), so four
 * viewers of a 10,000-machine data center cost sabakan and kintsugi one search, not one each. A failed search is not kept.
 */
export class SharedFleetStates {
  private kept: { readonly at: number; readonly read: Promise<FleetStates> } | null = null;

  constructor(
    private readonly client: SabakanAsker,
    private readonly now: () => number,
    private readonly maxAgeMs = FLEET_STATES_MAX_AGE_MS,
  ) {}

  read(): Promise<FleetStates> {
    const now = this.now();
    if (this.kept !== null && now - this.kept.at < this.maxAgeMs) return this.kept.read;
    const read = this.search();
    const kept = { at: now, read };
    this.kept = kept;
    read.catch(() => {
      if (this.kept === kept) this.kept = null;
    });
    return read;
  }

  /** The next read asks sabakan again (a state changed through kintsugi). */
  forget(): void {
    this.kept = null;
  }

  private async search(): Promise<FleetStates> {
    const answer = await ask(this.client, DOCUMENT, {});
    const [first] = answer.errors;
    const listed = answer.data?.["searchMachines"];
    if (first && !Array.isArray(listed)) throw new ForwardedSabakanError(first);
    return fleetStatesOf(listed);
  }
}
