import type { Logger } from "pino";
import type { KintsugiConfig } from "../config/kintsugi-config.js";
import { openSqliteStore } from "../store/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../store/store-port.js";

/**
 * Opens the store the config names (the SQLite file at `database`, held by this process alone) and says loudly
 * when it cannot be written.
 */
export async function openStore(config: KintsugiConfig, logger: Logger): Promise<KintsugiStore> {
  const store = openSqliteStore({ path: config.database, initialConstraints: config.constraints });
  const atStart = store.health();
  if (!atStart.healthy) logger.error({ reason: atStart.reason }, "the database cannot be written; GET /health answers 503 until it can");
  return store;
}
