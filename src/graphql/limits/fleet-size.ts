/**
 * The fleet size the cost model weighs fleet-sized lists and joins by (see list-bounds.ts): the largest fleet
 * sabakan has answered with since start (a poll's `machinesSeen`, the length of a forwarded `searchMachines` answer,
 * whichever replica made it). The largest, not the last: a filtered search answers part of the fleet, and a fleet
 * that shrank only makes estimates cautious until the next start.
 *
 * Until sabakan has counted the whole fleet (an unfiltered search, asked at start), `assumed` machines are assumed
 * if that is more: a filtered answer cannot tell how large the fleet is, and the first request after a start must be
 * weighed at the real size, not at what nobody has answered yet.
 */
export class FleetSize {
  private largest = 0;
  private whole: boolean;

  /** `assumed`: the machines assumed until the whole fleet is counted; 0 (no sabakan) assumes nothing. */
  constructor(private readonly assumed = 0) {
    this.whole = assumed === 0;
  }

  /** Notes that sabakan answered with `machines` machines (part of the fleet, or all of it). */
  observe(machines: number): void {
    if (Number.isSafeInteger(machines) && machines > this.largest) this.largest = machines;
  }

  /** Notes that sabakan answered an unfiltered search with `machines` machines: the whole fleet, so nothing is assumed now. */
  counted(machines: number): void {
    this.observe(machines);
    this.whole = true;
  }

  /** Whether the whole fleet has been counted (always, when nothing is assumed). */
  get known(): boolean {
    return this.whole;
  }

  /** The machines to weigh lists by: the largest count observed, or the assumption while that is larger and the fleet not yet counted. */
  get machines(): number {
    return this.whole ? this.largest : Math.max(this.largest, this.assumed);
  }
}
