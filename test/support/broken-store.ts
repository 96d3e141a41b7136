import type { RunningKintsugi } from "../../src/main.js";

/**
 * Makes the running kintsugi's settings fail as a store whose table went missing would (an error no client caused);
 * returns how to mend it (the method as it was, whether the class or the instance held it).
 */
export function breakSettings(k: Pick<RunningKintsugi, "store">): () => void {
  const settings = k.store.settings as { repairQueueEnabled: () => boolean };
  const own = Object.getOwnPropertyDescriptor(settings, "repairQueueEnabled");
  settings.repairQueueEnabled = () => {
    throw new Error("no such table: settings");
  };
  return () => {
    if (own) Object.defineProperty(settings, "repairQueueEnabled", own);
    else delete (settings as Partial<typeof settings>).repairQueueEnabled;
  };
}
