import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Etcd3 } from "etcd3";
import { SnapshotSourceError, type SnapshotSource, type SnapshotTarget } from "./store-snapshot.js";
import { summarizeSnapshot, type SnapshotSummary } from "./snapshot-digest.js";
import { openKvSnapshotSource } from "./snapshot-export.js";
import { openKvSnapshotTarget } from "./snapshot-target.js";
import type { KvStoreAccess } from "../core/kv-store-access.js";
import { DEFAULT_ETCD_WRITE_LIMITS } from "../core/write-limits.js";
import { etcdAccess } from "../kv/etcd/open-etcd-store.js";
import { KV_SCHEMA_VERSION, openSqliteKvDriver, sqliteAccess, storedVersion } from "../kv/sqlite/open-sqlite-store.js";
import { openLockedDatabase } from "../kv/sqlite/database-lock.js";
import { refuseUnfinishedOldCopy } from "../kv/sqlite/old-tables/sqlite-copy-marker.js";
import { oldTableRows, sqliteSnapshotItems } from "../kv/sqlite/old-tables/sqlite-snapshot-export.js";
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

/**
 * A SQLite file as the source of a copy, its lock held for the whole copy (a running kintsugi's file is refused). A
 * file of the old tables is read as they are, not converted: a copy leaves its source as it was.
 */
export async function openSqliteSnapshotSource(path: string): Promise<SnapshotSource> {
  const file = resolve(path);
  if (!existsSync(file)) throw new SnapshotSourceError(`there is no SQLite database at ${file}`);
  const version = storedVersion(file);
  if (version === "new" || version >= KV_SCHEMA_VERSION) return openKvSnapshotSource(sqliteAccess(openSqliteKvDriver(file), file), true);
  const { db, close } = openLockedDatabase(file);
  try {
    refuseUnfinishedOldCopy(db);
  } catch (err) {
    close();
    throw err;
  }
  const description = `sqlite:${file}`;
  return { description, items: () => sqliteSnapshotItems(db, description), size: async () => oldTableRows(db), close: async () => close() };
}

/** A SQLite file as the target of a copy, its lock taken at once (a running kintsugi's file is refused). */
export function openSqliteSnapshotTarget(path: string): SnapshotTarget {
  const file = resolve(path);
  return openKvSnapshotTarget(sqliteAccess(openSqliteKvDriver(file), file));
}
