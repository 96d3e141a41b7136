import { summarizeSnapshot } from "./copy-store.js";
import type { SnapshotSummary } from "./snapshot-digest.js";
import { openEtcdSnapshotSource, type EtcdSnapshotOptions } from "./etcd-snapshot-access.js";

/** Checks the etcd store as `kintsugi db check` checks a SQLite file, while its replicas run: read at one revision as a copy reads it. */
export async function checkEtcdStore(options: EtcdSnapshotOptions): Promise<{ readonly description: string; readonly summary: SnapshotSummary }> {
  const source = await openEtcdSnapshotSource({ ...options, whileRunning: true });
  try {
    return { description: source.description, summary: await summarizeSnapshot(source.description, source.items()) };
  } finally {
    await source.close();
  }
}
