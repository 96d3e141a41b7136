import { createHash, type Hash } from "node:crypto";
import { z } from "../../support/zod.js";
import { stableJson } from "../../domain/cluster/stable-json.js";
import { SnapshotSourceError, type SnapshotItem, type SnapshotItemKind } from "./store-snapshot.js";
import { COUNT_OF, kindOf, raiseHighest, SNAPSHOT_KINDS, type SnapshotCounts, type SnapshotHighest } from "./snapshot-kinds.js";

const id = z.number().int().min(1);

/** What the store hands out next: above every number it holds or ever handed out, so a copy goes on where it stopped. */
const countersSchema = z.object({ nextIndex: id, nextHistorySequence: id, nextOutcomeSequence: id, nextGenerationSequence: id });
export type SnapshotCounters = Readonly<z.infer<typeof countersSchema>>;

const itemSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("counters"), counters: countersSchema }),
  ...Object.values(SNAPSHOT_KINDS).map((spec) => z.object({ kind: z.literal(spec.kind), ...spec.fields })),
]);

/** The counters as errors name them. */
const COUNTER_NAMES: Readonly<Record<keyof SnapshotCounters, string>> = {
  nextIndex: "next index",
  nextHistorySequence: "next history sequence",
  nextOutcomeSequence: "next outcome sequence",
  nextGenerationSequence: "next generation sequence",
};

/** The kinds in the snapshot's canonical order: each count's, then the counters. */
const ITEM_ORDER: readonly SnapshotItemKind[] = [...Object.values(SNAPSHOT_KINDS).map((spec) => spec.kind), "counters"];

/** What a whole snapshot comes to: its counts, its counters and the sha256 (hex) of its canonical serialization. */
export interface SnapshotSummary {
  readonly counts: SnapshotCounts;
  readonly counters: SnapshotCounters;
  readonly sha256: string;
}

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

/** The part of an item that orders it within its kind. */
function orderKey(item: SnapshotItem): readonly number[] | Buffer {
  return item.kind === "counters" ? [] : kindOf(item).order(item);
}

function compareKeys(a: readonly number[] | Buffer, b: readonly number[] | Buffer): number {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return Buffer.compare(a, b);
  const x = a as readonly number[];
  const y = b as readonly number[];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return x.length - y.length;
}

/**
 * Hashes a snapshot as it streams by (sha256 over one canonical line per item) and counts it. It holds the stream to
 * the snapshot's rules, so a copy never writes what it could not verify: canonical order with no duplicate, the
 * counters once and last, and above every number the snapshot holds.
 */
export class SnapshotDigest {
  private readonly hash: Hash = createHash("sha256");
  private readonly counts = Object.fromEntries(Object.keys(SNAPSHOT_KINDS).map((name) => [name, 0])) as Record<keyof SnapshotCounts, number>;
  private readonly highest: SnapshotHighest = { nextIndex: 0, nextHistorySequence: 0, nextOutcomeSequence: 0, nextGenerationSequence: 0 };
  private last: { kind: SnapshotItemKind; key: readonly number[] | Buffer } | null = null;
  private counters: SnapshotCounters | null = null;

  constructor(private readonly from: string) {}

  /** Adds the next item; returns the byte length of its canonical line (what a chunk of the copy is measured by). */
  add(item: SnapshotItem): number {
    if (this.counters !== null) throw this.fault(`${describeItem(item)} comes after the counters`);
    const key = orderKey(item);
    if (this.last !== null) {
      const kindOrder = ITEM_ORDER.indexOf(item.kind) - ITEM_ORDER.indexOf(this.last.kind);
      if (kindOrder < 0 || (kindOrder === 0 && compareKeys(key, this.last.key) <= 0)) throw this.fault(`${describeItem(item)} is out of order or repeated`);
    }
    this.last = { kind: item.kind, key };
    this.count(item);
    // Its keys sorted: an item hashes the same whichever order a store wrote its fields in.
    const { kind, ...payload } = item;
    const line = `${kind}\t${stableJson(payload)}\n`;
    this.hash.update(line);
    return Buffer.byteLength(line);
  }

  summary(): SnapshotSummary {
    if (this.counters === null) throw this.fault("the snapshot ended without its counters");
    return { counts: { ...this.counts }, counters: this.counters, sha256: this.hash.digest("hex") };
  }

  private count(item: SnapshotItem): void {
    if (item.kind !== "counters") {
      this.counts[COUNT_OF[item.kind]]++;
      raiseHighest(this.highest, item);
      return;
    }
    for (const [counter, held] of Object.entries(this.highest) as Array<[keyof SnapshotCounters, number]>) {
      const next = item.counters[counter];
      if (next <= held) throw this.fault(`the ${COUNTER_NAMES[counter]} is ${next}, but ${held} is already used: a copy would hand it out again`);
    }
    this.counters = item.counters;
  }

  private fault(message: string): SnapshotSourceError {
    return new SnapshotSourceError(`${this.from}: ${message}`);
  }
}

/** Reads a whole snapshot, checked as a copy would, and sums it up. */
export async function summarizeSnapshot(from: string, items: AsyncIterable<SnapshotItem>): Promise<SnapshotSummary> {
  const digest = new SnapshotDigest(from);
  for await (const item of items) digest.add(checkSnapshotItem(item, from));
  return digest.summary();
}
