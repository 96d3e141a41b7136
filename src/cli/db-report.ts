import { COUNT_NAMES, type SnapshotCounts } from "../store/copy/snapshot-kinds.js";
import type { SnapshotSummary } from "../store/copy/snapshot-digest.js";
import type { DatabaseCheck } from "../store/copy/database-check.js";
import { NEWEST_SCHEMA_VERSION } from "../store/kv/sqlite/old-tables/migrations/index.js";

/** One line per aggregate, names aligned: `  repair entries      4`. */
export function countLines(counts: SnapshotCounts): string[] {
  const width = Math.max(...Object.values(COUNT_NAMES).map((name) => name.length));
  return (Object.entries(COUNT_NAMES) as Array<[keyof SnapshotCounts, string]>).map(([key, name]) => `  ${name.padEnd(width)}  ${counts[key]}`);
}

/** What the store hands out next. */
export function counterLine(summary: SnapshotSummary): string {
  const c = summary.counters;
  return (
    `  next index ${c.nextIndex}, next history sequence ${c.nextHistorySequence}, ` +
    `next outcome sequence ${c.nextOutcomeSequence}, next generation sequence ${c.nextGenerationSequence}`
  );
}

/** A SQLite file's schema version against this kintsugi's, and what `kintsugi serve` does with it. */
export function schemaLine(version: number): string {
  if (version === NEWEST_SCHEMA_VERSION) return `  schema version ${version} (this kintsugi's)`;
  if (version < NEWEST_SCHEMA_VERSION)
    return `  schema version ${version}, older than this kintsugi's (${NEWEST_SCHEMA_VERSION}): kintsugi serve migrates it forward at start`;
  return `  schema version ${version}, newer than this kintsugi's (${NEWEST_SCHEMA_VERSION}): kintsugi serve refuses it`;
}

/** The lines under a SQLite file's heading: its schema version, counts, counters and sha256. */
export function checkLines(check: DatabaseCheck): string[] {
  const lines: string[] = [];
  if (check.schemaVersion !== null) lines.push(schemaLine(check.schemaVersion));
  if (check.summary !== null) {
    lines.push(...countLines(check.summary.counts), counterLine(check.summary));
    const migrated = check.schemaVersion !== NEWEST_SCHEMA_VERSION ? ` (of what it holds once migrated to schema version ${NEWEST_SCHEMA_VERSION})` : "";
    lines.push(`  sha256 ${check.summary.sha256}${migrated}`);
  }
  return lines;
}

/** Lines as printed: each ended by a newline. */
export function printed(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join("");
}
