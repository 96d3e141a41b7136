/**
 * Lets one child process be spawned an event-loop turn. Spawning forks the whole process (its page tables: about
 * 11-18 ms here at 150-550 MB of RSS, more on a loaded machine) and blocks the event loop meanwhile, so 32 health
 * checks started at once held it 350 ms. The first spawn of a turn happens at once; the others wait for later turns,
 * and the loop answers (`/health`, the API) between them.
 */
export class SpawnTurns {
  private readonly waiting: Array<() => void> = [];
  private spawnedThisTurn = false;

  /** Calls `spawn` now if nothing was spawned in this turn, else on a later turn, in order. */
  inTurn(spawn: () => void): void {
    if (this.spawnedThisTurn || this.waiting.length > 0) {
      this.waiting.push(spawn);
      return;
    }
    this.spawnedThisTurn = true;
    setImmediate(() => this.nextTurn());
    spawn();
  }

  private nextTurn(): void {
    const spawn = this.waiting.shift();
    if (spawn === undefined) {
      this.spawnedThisTurn = false;
      return;
    }
    setImmediate(() => this.nextTurn());
    spawn();
  }
}
