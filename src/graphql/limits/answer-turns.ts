/**
 * The estimated answer bytes whose items one turn of the event loop builds. graphql-js completes a list's items in
 * one synchronous step: a fleet-sized answer (searchMachines of 10,000 machines, about 1 MB) held the loop, and every
 * other request and /health with it, for tens of milliseconds. At this share a turn builds about 32 KB of answer.
 */
export const TURN_BYTES = 32 * 1024;

/** The next turn of the event loop: after the I/O that waits (a /health probe, another request) is served. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Spreads the building of one answer's long lists over turns of the event loop: items past a turn's share of
 * {@link TURN_BYTES} are handed to graphql-js as promises of themselves that settle a turn later each share, so
 * graphql-js builds them then. The items and their order are unchanged (graphql-js keeps a list's order whatever
 * settles when), so the answer is byte for byte the same. One per answer: the shares of all its lists add up.
 */
export class AnswerTurns {
  /** The turn that items are handed to now; null while they are built in the current turn. */
  private turn: Promise<void> | null = null;
  private spentBytes = 0;
  private turns = 0;

  constructor(
    private readonly perTurn = TURN_BYTES,
    private readonly next: () => Promise<void> = nextTurn,
  ) {}

  /**
   * `items`, each estimated at `itemBytes`, with those past the current turn's share as promises of later turns;
   * `halt` runs before such an item is handed over and throws to leave it unbuilt (an answer already refused).
   */
  pace<T>(items: readonly T[], itemBytes: number, halt: () => void = () => undefined): ReadonlyArray<T | Promise<T>> {
    const bytes = Math.max(1, itemBytes);
    if (this.turn === null && this.spentBytes + items.length * bytes <= this.perTurn) {
      this.spentBytes += items.length * bytes;
      return items;
    }
    const paced = new Array<T | Promise<T>>(items.length);
    for (let i = 0; i < items.length; i++) {
      if (this.spentBytes >= this.perTurn) {
        this.turn = (this.turn ?? Promise.resolve()).then(this.next);
        this.spentBytes = 0;
        this.turns++;
      }
      const item = items[i] as T;
      paced[i] =
        this.turn === null
          ? item
          : this.turn.then(() => {
              halt();
              return item;
            });
      this.spentBytes += bytes;
    }
    return paced;
  }

  /** The turns after the first that items were handed to so far. */
  get laterTurns(): number {
    return this.turns;
  }
}
