import { KvCompactedError, type KvDriver } from "../kv-driver.js";
import type { Log } from "../../../support/log.js";

/** Past this many revisions, an etcd that was never compacted is growing toward its backend quota. */
export const UNCOMPACTED_REVISIONS_WARNING = 100_000;

/** What the start-up check found: whether anything ever compacted this etcd, and its revision then. */
export type EtcdCompactionState = { readonly compacted: true } | { readonly compacted: false; readonly revision: number };

export interface EtcdCompactionCheckOptions {
  readonly driver: KvDriver;
  /** A key that always exists once the store does (the schema key). */
  readonly probeKey: string;
  /** Whether kintsugi compacts this etcd itself (`etcd.compaction-retention` is not off). */
  readonly kintsugiCompacts: boolean;
  /** Default UNCOMPACTED_REVISIONS_WARNING (tests lower it). */
  readonly warnAboveRevision?: number;
  readonly log: Log;
}

/**
 * Tells whether anything compacts this etcd (its members' `--auto-compaction-*` flags, kube-apiserver, another
 * client, or kintsugi): a read at revision 1 fails once anything has compacted past it. When nothing has, the etcd is
 * past `warnAboveRevision` revisions and kintsugi's own compaction is off, says so at error level with the flags or
 * the key that would fix it: without compaction etcd keeps every revision until it reaches its backend quota
 * (2 GiB by default) and refuses every write, sabakan's and CKE's included. Never fails the start; a read that fails
 * is logged and the check skipped.
 */
export async function checkEtcdCompaction(options: EtcdCompactionCheckOptions): Promise<EtcdCompactionState | null> {
  const { driver, log } = options;
  let state: EtcdCompactionState;
  try {
    const { revision } = await driver.get("checking whether etcd is compacted", options.probeKey, { revision: 1 });
    state = { compacted: false, revision };
  } catch (err) {
    if (err instanceof KvCompactedError) return { compacted: true };
    log.warn("could not check whether etcd is compacted", { cause: err instanceof Error ? err.message : String(err) });
    return null;
  }
  const limit = options.warnAboveRevision ?? UNCOMPACTED_REVISIONS_WARNING;
  if (options.kintsugiCompacts) {
    log.info("etcd has never been compacted; kintsugi compacts its old revisions (etcd.compaction-retention)", { revision: state.revision });
  } else if (state.revision > limit) {
    log.error(
      "etcd has never been compacted and etcd.compaction-retention is off: nothing compacts it, so it keeps every " +
        "revision until it reaches its backend quota and refuses all writes; start the etcd members with " +
        '--auto-compaction-mode=periodic --auto-compaction-retention=1h, or set etcd.compaction-retention (e.g. "24h")',
      { description: driver.description, revision: state.revision },
    );
  }
  return state;
}
