import { KvCompactedError, type KvDriver } from "../kv-driver.js";
import type { Log } from "../../../support/log.js";

/** Past this many revisions, an etcd that was never compacted is growing toward its backend quota. */
const UNCOMPACTED_REVISIONS_WARNING = 100_000;

type EtcdCompactionState = { readonly compacted: true } | { readonly compacted: false; readonly revision: number };

interface EtcdCompactionCheckOptions {
  readonly driver: KvDriver;
  readonly probeKey: string;
  readonly kintsugiCompacts: boolean;
  readonly warnAboveRevision?: number;
  readonly log: Log;
}

/**
 * Tells whether anything compacts this etcd: a read at revision 1 fails once anything has. When nothing has, etcd is
 * past `warnAboveRevision` revisions and kintsugi's compaction is off, says so at error level: etcd keeps every
 * revision until its backend quota, then refuses every write, sabakan's and CKE's included. Never fails the start.
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
