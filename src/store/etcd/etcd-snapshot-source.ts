import type { Etcd3 } from "etcd3";
import { SnapshotSourceError, type SnapshotSource } from "../copy/store-snapshot.js";
import { EtcdAvailability } from "./etcd-availability.js";
import { refuseUnfinishedCopy } from "./etcd-copy-marker.js";
import { EtcdKeys } from "./etcd-keys.js";
import { etcdSnapshotItems, refuseUnknownLayout } from "./etcd-snapshot-export.js";
import { SILENT_LOG } from "../../support/log.js";

/** Where a copy reads or writes an etcd store: the caller's client (it owns it), the prefix, and how calls are named. */
export interface EtcdSnapshotOptions {
  readonly client: Etcd3;
  /** e.g. `/kintsugi/`; must end with "/". */
  readonly prefix: string;
  /** Named in the description and in errors. */
  readonly endpoints: readonly string[];
  /** The deadline of every etcd call, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * Read while replicas run (a backup): the snapshot is read at one revision, so it is consistent however they write
   * meanwhile. A copy that moves an installation leaves this unset: what they write after its read would be lost.
   */
  readonly whileRunning?: boolean;
}

/** The store's description and the availability its calls report to (deadlines, errors naming the endpoints). */
export function etcdSnapshotAccess(options: EtcdSnapshotOptions): { keys: EtcdKeys; availability: EtcdAvailability; description: string } {
  const keys = new EtcdKeys(options.prefix);
  const availability = new EtcdAvailability(options.endpoints, options.timeoutMs, (call) => options.client.get(keys.schema).options(call).exec(), SILENT_LOG);
  return { keys, availability, description: `etcd prefix ${keys.prefix} on ${options.endpoints.join(",")}` };
}

/**
 * An etcd store as the source of a copy. Refused while kintsugi replicas run on it (their election keys are there),
 * unless `whileRunning`: what they write after the copy read the store would be lost. Refused too when it holds an unfinished copy, a newer
 * layout or a key kintsugi does not write (checked again at the revision the copy reads).
 */
export async function openEtcdSnapshotSource(options: EtcdSnapshotOptions): Promise<SnapshotSource> {
  const { keys, availability, description } = etcdSnapshotAccess(options);
  try {
    await refuseUnfinishedCopy(options.client, keys, availability);
    let replicas = 0;
    try {
      if (options.whileRunning !== true) replicas = await options.client.getAll().inRange(keys.allLeaders).options(availability.callOptions()).count();
    } catch (err) {
      throw availability.failed(`reading ${keys.allLeaders.start}`, err);
    }
    if (replicas > 0) {
      throw new SnapshotSourceError(
        `${description}: ${replicas} kintsugi replica(s) run on it (election keys under ${keys.allLeaders.start}); stop them before copying, ` +
          "so that nothing is written after the copy has read the store",
      );
    }
    await refuseUnknownLayout(options.client, keys, availability, description);
  } catch (err) {
    availability.close();
    throw err;
  }
  return {
    description,
    items: () => etcdSnapshotItems(options.client, keys, availability, description),
    close: async () => availability.close(),
  };
}
