import { summarizeSnapshot } from "./copy-store.js";
import type { SnapshotSummary } from "./snapshot-digest.js";
import { openEtcdSnapshotSource, type EtcdSnapshotOptions } from "./etcd-snapshot-access.js";

/**
 * Checks the etcd store as `kintsugi db check` checks a SQLite file, while its replicas run: reads it at one revision
 * and checks every key and value as a copy does (the layout version, keys kintsugi does not write, values it cannot
 * read, the counters), and sums it up. Its failures (SnapshotSourceError, UnfinishedCopyError, StoreUnavailableError)
 * name the problem.
 */
export async function checkEtcdStore(options: EtcdSnapshotOptions): Promise<{ readonly description: string; readonly summary: SnapshotSummary }> {
  const source = await openEtcdSnapshotSource({ ...options, whileRunning: true });
  try {
    return { description: source.description, summary: await summarizeSnapshot(source.description, source.items()) };
  } finally {
    await source.close();
  }
}
