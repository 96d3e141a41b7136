/** Placeholder. */
export async function runSweep(_o: { json: boolean }): Promise<number> {
  return 0;
}
