import { waitsByIndex } from "../domain/queue/published-waits.js";
import type { WaitingFor } from "../domain/queue/repair-wait.js";
import type { KintsugiStore } from "../store/store-port.js";

/**
 * The waits the leader published (see RepairWaits), by entry index, as this replica's store has them: read again,
 * when next asked, after a commit that changed them. A follower answers `waitingFor` from it.
 */
export function publishedWaitsView(store: Pick<KintsugiStore, "settings" | "onCommit">): (index: number) => WaitingFor | null {
  let byIndex: ReadonlyMap<number, WaitingFor> | null = null;
  store.onCommit((commit) => {
    if (commit.settings.includes("repair-waits")) byIndex = null;
  });
  return (index) => {
    byIndex ??= waitsByIndex(store.settings.repairWaits());
    return byIndex.get(index) ?? null;
  };
}
