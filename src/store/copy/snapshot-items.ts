import { z } from "zod";
import { DEFAULT_WORKER_SELECTION, WORKER_SELECTIONS } from "../../domain/cluster/worker-selection.js";
import { finishedRepairSchema, generationValue, historyRecordSchema, outcomeValue, repairEntrySchema, storedHoldSchema } from "../core/value-schemas.js";
import { pollRecordSchema, remediationRecordSchema } from "../poll-record-schema.js";
import { SnapshotSourceError, type SnapshotItem } from "./store-snapshot.js";

const id = z.number().int().min(1);

/** A generation record with its configuration as JSON text; snapshots written before records named their policy: weighted. */
const generationSchema = generationValue.shape.record
  .omit({ templateSetAt: true })
  .extend({ policy: z.enum(WORKER_SELECTIONS).default(DEFAULT_WORKER_SELECTION), cluster: z.string().nullable() });

const countersSchema = z.object({ nextIndex: id, nextHistorySequence: id, nextOutcomeSequence: id, nextGenerationSequence: id });

/** What a setting holds. */
const jsonValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number().finite(), z.string(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

const itemSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("setting"), name: z.string().min(1), value: jsonValue }),
  z.object({ kind: z.literal("entry"), entry: repairEntrySchema }),
  z.object({ kind: z.literal("history"), record: historyRecordSchema }),
  z.object({ kind: z.literal("outcome"), outcome: outcomeValue.shape.outcome }),
  z.object({ kind: z.literal("generation"), generation: generationSchema }),
  z.object({ kind: z.literal("hold"), hold: storedHoldSchema }),
  z.object({ kind: z.literal("finished"), finished: finishedRepairSchema }),
  z.object({
    kind: z.literal("replay"),
    replay: z.discriminatedUnion("area", [
      z.object({ sequence: id, area: z.literal("intake"), record: pollRecordSchema }),
      z.object({ sequence: id, area: z.literal("health-check"), record: remediationRecordSchema }),
    ]),
  }),
  z.object({ kind: z.literal("counters"), counters: countersSchema }),
]);

/** Names an item in an error: "setting constraints". */
export function describeItem(item: SnapshotItem): string {
  switch (item.kind) {
    case "setting":
      return `setting ${item.name}`;
    case "entry":
      return `repair entry ${item.entry.index}`;
    case "history":
      return `history record ${item.record.sequence} (repair entry ${item.record.entryIndex})`;
    case "outcome":
      return `poll outcome ${item.outcome.sequence}`;
    case "generation":
      return `generation record ${item.generation.sequence}`;
    case "hold":
      return `machine hold ${JSON.stringify(item.hold.address)}`;
    case "finished":
      return `finished-repair record ${item.finished.sequence} (repair entry ${item.finished.entryIndex})`;
    case "replay":
      return `replay record ${item.replay.sequence} (${item.replay.area === "intake" ? "a poll's intake" : `health check ${JSON.stringify(item.replay.record.check)}`})`;
    case "counters":
      return "the counters";
  }
}

/** An item checked against the shapes the stores write, with exactly their fields: a copy writes nothing a store would not. */
export function checkSnapshotItem(item: SnapshotItem, from: string): SnapshotItem {
  const parsed = itemSchema.safeParse(item);
  if (parsed.success) return parsed.data as SnapshotItem;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  throw new SnapshotSourceError(`${from}: ${describeItem(item)} cannot be copied: ${where}${issue?.message ?? "invalid"}`);
}
