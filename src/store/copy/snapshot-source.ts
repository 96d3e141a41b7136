import { SnapshotSourceError, type SnapshotSource } from "./store-snapshot.js";
import { refuseUnfinishedCopy } from "./copy-marker.js";
import { kvSnapshotItems, refuseUnknownLayout } from "./snapshot-export.js";
import type { KvStoreAccess } from "../core/kv-store-access.js";

/**
 * A store as the source of a copy, refused while replicas run on it (unless `whileRunning`), and when it holds an
 * unfinished copy, a newer layout or a key kintsugi does not write.
 */
export async function openKvSnapshotSource(access: KvStoreAccess, whileRunning: boolean): Promise<SnapshotSource> {
  const { driver, keys, description } = access;
  try {
    await refuseUnfinishedCopy(access);
    const replicas = whileRunning ? 0 : await driver.count(`reading ${keys.allLeaders.start}`, keys.allLeaders);
    if (replicas > 0) {
      throw new SnapshotSourceError(
        `${description}: ${replicas} kintsugi replica(s) run on it (election keys under ${keys.allLeaders.start}); stop them before copying, ` +
          "so that nothing is written after the copy has read the store",
      );
    }
    await refuseUnknownLayout(driver, keys, description);
  } catch (err) {
    await driver.close();
    throw err;
  }
  return {
    description,
    items: () => kvSnapshotItems(driver, keys, description),
    size: () => driver.count(`counting the keys of ${description}`, keys.all),
    close: () => driver.close(),
  };
}
