import type { RunningKintsugi } from "../../src/main.js";

/**
 * Makes the running kintsugi's settings fail as a store whose table went missing would (an error no client caused);
 * returns how to mend it.
 */
export function breakSettings(k: Pick<RunningKintsugi, "store">): () => void {
  const settings = k.store.settings as { repairQueueEnabled: () => boolean };
  settings.repairQueueEnabled = () => {
    throw new Error("no such table: settings");
  };
  return () => {
    delete (settings as Partial<typeof settings>).repairQueueEnabled;
  };
}
