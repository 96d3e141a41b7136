/**
 * What `work` resolves to and how many turns of the event loop ran while it worked (a setImmediate chain counts
 * them): work that yields lets other work (a server's /health, its other requests) in between, work that holds the
 * loop counts none.
 */
export async function turnsDuring<T>(work: () => Promise<T> | T): Promise<{ readonly value: T; readonly turns: number }> {
  let turns = 0;
  let counting = true;
  const count = () => {
    if (!counting) return;
    turns++;
    setImmediate(count);
  };
  setImmediate(count);
  try {
    return { value: await work(), turns };
  } finally {
    counting = false;
  }
}
