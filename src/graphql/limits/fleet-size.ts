/**
 * The largest fleet sabakan has answered with since start: a poll's `machinesSeen` or the length of a forwarded
 * `searchMachines` answer, whichever replica made it. The cost model weighs fleet-sized lists and joins by it (see
 * list-bounds.ts). The largest, not the last: a filtered search answers part of the fleet, and a fleet that shrank
 * only makes estimates cautious until the next start.
 */
export class FleetSize {
  private largest = 0;

  /** Notes that sabakan answered with `machines` machines. */
  observe(machines: number): void {
    if (Number.isSafeInteger(machines) && machines > this.largest) this.largest = machines;
  }

  /** The largest count observed; 0 before any. */
  get machines(): number {
    return this.largest;
  }
}
