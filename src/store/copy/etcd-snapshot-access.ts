import type { Etcd3 } from "etcd3";
import type { SnapshotSource, SnapshotTarget } from "./store-snapshot.js";
import { etcdAccess } from "../kv/etcd/open-etcd-store.js";
import { DEFAULT_ETCD_WRITE_LIMITS } from "../core/write-limits.js";
import type { KvStoreAccess } from "../core/kv-store-access.js";
import { summarizeSnapshot, type SnapshotSummary } from "./snapshot-digest.js";
import { openKvSnapshotSource } from "./snapshot-export.js";
import { openKvSnapshotTarget } from "./snapshot-target.js";
import { SILENT_LOG } from "../../support/log.js";

/** Where a copy reads or writes an etcd store (the caller's client), and how calls are named. */
export interface EtcdSnapshotOptions {
  readonly client: Etcd3;
  readonly prefix: string;
  readonly endpoints: readonly string[];
  readonly timeoutMs: number;
}

function etcdSnapshotAccess(options: EtcdSnapshotOptions): KvStoreAccess {
  return etcdAccess({ ...options, limits: DEFAULT_ETCD_WRITE_LIMITS, log: SILENT_LOG });
}

/**
 * An etcd store as the source of a copy (see openKvSnapshotSource); `whileRunning` for a backup, consistent at one
 * revision while replicas write. A copy that moves an installation reads no store that runs: what replicas write
 * after its read would be lost.
 */
export function openEtcdSnapshotSource(options: EtcdSnapshotOptions, whileRunning = false): Promise<SnapshotSource> {
  return openKvSnapshotSource(etcdSnapshotAccess(options), whileRunning);
}

/** An etcd prefix as the target of a copy (see {@link openKvSnapshotTarget}). */
export function openEtcdSnapshotTarget(options: EtcdSnapshotOptions): SnapshotTarget {
  return openKvSnapshotTarget(etcdSnapshotAccess(options));
}

/** Checks the etcd store as `kintsugi db check` checks a SQLite file, while its replicas run: read at one revision as a copy reads it. */
export async function checkEtcdStore(options: EtcdSnapshotOptions): Promise<{ readonly description: string; readonly summary: SnapshotSummary }> {
  const source = await openEtcdSnapshotSource(options, true);
  try {
    return { description: source.description, summary: await summarizeSnapshot(source.description, source.items()) };
  } finally {
    await source.close();
  }
}
