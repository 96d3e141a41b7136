/**
 * Lets every promise chain the simulation started run until nothing more happens: the real runner's jobs, commits
 * and Kubernetes calls all move through promises (the store is synchronous underneath), so a few turns of the event
 * loop in which `activity` (a count of commits) does not change mean every job waits on the virtual clock.
 */
export async function settle(activity: () => number, maxTurns = 1000): Promise<void> {
  let still = 0;
  for (let turn = 0; turn < maxTurns && still < 3; turn++) {
    const before = activity();
    await new Promise<void>((resolve) => setImmediate(resolve));
    still = activity() === before ? still + 1 : 0;
  }
}
