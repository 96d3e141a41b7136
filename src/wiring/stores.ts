import type { Logger } from "pino";
import type { KintsugiConfig } from "../config/kintsugi-config.js";
import { checkConstraints } from "../domain/constraints.js";
import { AutoRepairOutcomeStore } from "../store/auto-repair-outcome-store.js";
import { ClusterGenerationStore } from "../store/cluster-generation-store.js";
import type { Db } from "../store/database.js";
import { DatabaseHealth } from "../store/database-health.js";
import { openLockedDatabase } from "../store/database-lock.js";
import { RepairEntryStore } from "../store/repair-entry-store.js";
import { SettingsStore } from "../store/settings-store.js";

/** The database (held by this process alone) and one store per aggregate. */
export interface Stores {
  readonly db: Db;
  readonly settings: SettingsStore;
  readonly entries: RepairEntryStore;
  readonly outcomes: AutoRepairOutcomeStore;
  readonly generations: ClusterGenerationStore;
  /** What GET /health reports of the database. */
  readonly health: DatabaseHealth;
  /** Closes the database and releases its lock; the last step of shutdown. */
  close(): void;
}

/**
 * Opens the database under its lock (a second kintsugi on the same file is refused), checks that the constraints of
 * the config file and the stored ones agree, and says loudly when the file cannot be written.
 */
export function openStores(config: KintsugiConfig, logger: Logger): Stores {
  const { db, close } = openLockedDatabase(config.database);
  try {
    const settings = new SettingsStore(db, config.constraints);
    const effective = checkConstraints(settings.constraints());
    if (!effective.ok) throw new Error(`constraints (config file and stored values together): ${effective.message}`);
    const health = new DatabaseHealth(db);
    const atStart = health.check();
    if (!atStart.healthy) logger.error({ reason: atStart.reason }, "the database cannot be written; GET /health answers 503 until it can");
    return {
      db,
      settings,
      entries: new RepairEntryStore(db),
      outcomes: new AutoRepairOutcomeStore(db),
      generations: new ClusterGenerationStore(db),
      health,
      close,
    };
  } catch (err) {
    close();
    throw err;
  }
}
