import { z } from "zod";
import type { StoreKeys } from "../core/store-keys.js";
import { encodeValue } from "../core/store-values.js";
import { kindOf, SNAPSHOT_KINDS } from "./snapshot-kinds.js";
import { SnapshotSourceError, type SnapshotItem } from "./store-snapshot.js";

const id = z.number().int().min(1);

const countersSchema = z.object({ nextIndex: id, nextHistorySequence: id, nextOutcomeSequence: id, nextGenerationSequence: id });

const itemSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("counters"), counters: countersSchema }),
  ...Object.values(SNAPSHOT_KINDS).map((spec) => z.object({ kind: z.literal(spec.kind), ...spec.fields })),
]);

/** Names an item in an error: "setting constraints". */
export function describeItem(item: SnapshotItem): string {
  return item.kind === "counters" ? "the counters" : kindOf(item).describe(item);
}

/** An item checked against the shapes the stores write, with exactly their fields: a copy writes nothing a store would not. */
export function checkSnapshotItem(item: SnapshotItem, from: string): SnapshotItem {
  const parsed = itemSchema.safeParse(item);
  if (parsed.success) return parsed.data as SnapshotItem;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  throw new SnapshotSourceError(`${from}: ${describeItem(item)} cannot be copied: ${where}${issue?.message ?? "invalid"}`);
}

/**
 * The puts that store one snapshot item as the store core keeps it on both drivers (see value-schemas.ts), for a copy
 * into a store and for the conversion of the old SQLite tables to the key-value table. `writeId` stamps heads and
 * settings.
 */
export function putsOf(keys: StoreKeys, item: SnapshotItem, writeId: string): Array<{ key: string; value: string }> {
  if (item.kind !== "counters") return kindOf(item).puts(keys, item, writeId);
  const c = item.counters;
  return [
    { key: keys.queue, value: encodeValue({ w: writeId, nextIndex: c.nextIndex, nextSequence: c.nextHistorySequence }) },
    { key: keys.outcomesHead, value: encodeValue({ w: writeId, next: c.nextOutcomeSequence }) },
    { key: keys.generationsHead, value: encodeValue({ w: writeId, next: c.nextGenerationSequence }) },
  ];
}
