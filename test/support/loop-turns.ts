/** A running count of the event loop's turns (a setImmediate chain), read at any moment; `stop` ends the chain. */
export interface TurnCount {
  readonly turns: number;
  stop(): void;
}

/**
 * Starts counting the event loop's turns: `turns` moves on once a turn, in its setImmediate phase, before the
 * immediates scheduled after the count began (work they start counts in the turn it runs in).
 */
export function countTurns(): TurnCount {
  let turns = 0;
  let counting = true;
  const count = () => {
    if (!counting) return;
    turns++;
    setImmediate(count);
  };
  setImmediate(count);
  return {
    get turns() {
      return turns;
    },
    stop: () => {
      counting = false;
    },
  };
}

/**
 * What `work` resolves to and how many turns of the event loop ran while it worked (a setImmediate chain counts
 * them): work that yields lets other work (a server's /health, its other requests) in between, work that holds the
 * loop counts none.
 */
export async function turnsDuring<T>(work: () => Promise<T> | T): Promise<{ readonly value: T; readonly turns: number }> {
  const counter = countTurns();
  try {
    const value = await work();
    return { value, turns: counter.turns };
  } finally {
    counter.stop();
  }
}
