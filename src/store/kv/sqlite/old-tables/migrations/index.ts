import type { Db } from "../../database.js";
import { initialSchema } from "./001-initial.js";
import { autoRepairOutcomesSchema } from "./002-auto-repair-outcomes.js";
import { clusterGenerationsSchema } from "./003-cluster-generations.js";
import { historyActorSchema } from "./004-history-actor.js";
import { copyMarkerSchema } from "./005-copy-marker.js";
import { machineHoldsSchema } from "./006-machine-holds.js";
import { finishedRepairsSchema } from "./007-finished-repairs.js";
import { repairEvidenceSchema } from "./008-repair-evidence.js";
import { historyTimelineSchema } from "./009-history-timeline.js";
import { pollRecordsSchema } from "./010-poll-records.js";
import { skippedCountsSchema } from "./011-skipped-counts.js";
import { generationPolicySchema } from "./012-generation-policy.js";

/**
 * A numbered schema change: SQL, or a function for a change SQL alone cannot make (one that decodes what the rows
 * hold). Either runs inside the migration's one transaction, so a function must be synchronous. Numbers only grow;
 * an applied migration is never edited, only followed by another.
 */
export type Migration = { readonly version: number; readonly name: string } & ({ readonly sql: string } | { readonly run: (db: Db) => void });

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "initial", sql: initialSchema },
  { version: 2, name: "auto-repair outcomes", sql: autoRepairOutcomesSchema },
  { version: 3, name: "cluster generations", sql: clusterGenerationsSchema },
  { version: 4, name: "history actor", sql: historyActorSchema },
  { version: 5, name: "copy marker", sql: copyMarkerSchema },
  { version: 6, name: "machine holds", sql: machineHoldsSchema },
  { version: 7, name: "finished repairs", sql: finishedRepairsSchema },
  { version: 8, name: "repair evidence", sql: repairEvidenceSchema },
  { version: 9, name: "history timeline", sql: historyTimelineSchema },
  { version: 10, name: "poll records", sql: pollRecordsSchema },
  { version: 11, name: "skipped counts", sql: skippedCountsSchema },
  { version: 12, name: "generation policy", sql: generationPolicySchema },
];

/** The last version of the old tables (migrations 1-12): a file at it or below is converted to the key-value table. */
export const LEGACY_SCHEMA_VERSION: number = MIGRATIONS.at(-1)?.version ?? 0;

/**
 * The schema version this kintsugi writes: the key-value table (src/store/kv/sqlite/open-sqlite-kv.ts, migration 13 converts
 * the old tables to it). A database with a higher one was written by a newer kintsugi.
 */
export const NEWEST_SCHEMA_VERSION = 13;
