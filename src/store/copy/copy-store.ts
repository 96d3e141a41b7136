import { progressCounter, type ProgressReport } from "../../support/progress.js";
import { randomUUID } from "node:crypto";
import { checkSnapshotItem, SnapshotDigest, summarizeSnapshot, type SnapshotSummary } from "./snapshot-digest.js";
import { COUNT_NAMES, type SnapshotCounts } from "./snapshot-kinds.js";
import type { SnapshotItem, SnapshotSource, SnapshotTarget } from "./store-snapshot.js";
import { NamedError } from "../store-errors.js";

/** A finished, verified copy. */
export interface CopyResult {
  readonly from: string;
  readonly to: string;
  readonly summary: SnapshotSummary;
}

/** A copy that began writing did not finish or verify; the target keeps its copy marker, so it refuses to open. */
export class CopyFailedError extends NamedError {}

/**
 * Copies `source` into the empty store `target` and verifies it: writes the copy marker, streams the snapshot in
 * bounded chunks while hashing it, reads the target back, and removes the marker only when counts, counters and
 * sha256 match. Every item is checked against the stores' shapes first. `progress` is told the items written of
 * about how many the source holds, about once a second.
 */
export async function copyStore(source: SnapshotSource, target: SnapshotTarget, progress?: (p: ProgressReport) => void): Promise<CopyResult> {
  await target.checkEmpty();
  await target.begin({ copyId: randomUUID(), source: source.description, startedAt: new Date().toISOString() });
  const failed = (message: string, cause?: unknown) =>
    new CopyFailedError(
      `${message}\n${target.description} keeps its copy marker and refuses to open: empty it (${target.howToEmpty}) and run kintsugi db copy again`,
      { cause },
    );
  let written: SnapshotSummary;
  try {
    const counter = progress ? progressCounter(await source.size(), progress) : null;
    written = await writeAll(source, target, (items) => counter?.update(items));
    counter?.finish();
  } catch (err) {
    throw failed(`copying ${source.description} to ${target.description} stopped: ${(err as Error).message}`, err);
  }
  let readBack: SnapshotSummary;
  try {
    readBack = await summarizeSnapshot(target.description, target.items());
  } catch (err) {
    throw failed(`reading the copy back from ${target.description} failed: ${(err as Error).message}`, err);
  }
  const differences = compare(written, readBack);
  if (differences.length > 0) throw failed(`the copy in ${target.description} does not match ${source.description}: ${differences.join("; ")}`);
  try {
    await target.finish();
  } catch (err) {
    throw failed(`the copy in ${target.description} was verified, but removing its copy marker failed: ${(err as Error).message}`, err);
  }
  return { from: source.description, to: target.description, summary: written };
}

async function writeAll(source: SnapshotSource, target: SnapshotTarget, written: (items: number) => void): Promise<SnapshotSummary> {
  const digest = new SnapshotDigest(source.description);
  const limits = target.chunkLimits;
  let chunk: SnapshotItem[] = [];
  let bytes = 0;
  let items = 0;
  for await (const raw of source.items()) {
    const item = checkSnapshotItem(raw, source.description);
    const size = digest.add(item);
    if (chunk.length > 0 && (chunk.length >= limits.items || bytes + size > limits.bytes)) {
      await target.writeChunk(chunk);
      written((items += chunk.length));
      chunk = [];
      bytes = 0;
    }
    chunk.push(item);
    bytes += size;
  }
  if (chunk.length > 0) {
    await target.writeChunk(chunk);
    written(items + chunk.length);
  }
  return digest.summary();
}

function compare(source: SnapshotSummary, copy: SnapshotSummary): string[] {
  const differences: string[] = [];
  for (const [key, name] of Object.entries(COUNT_NAMES) as Array<[keyof SnapshotCounts, string]>) {
    if (source.counts[key] !== copy.counts[key]) differences.push(`${name}: ${source.counts[key]} in the source, ${copy.counts[key]} in the copy`);
  }
  for (const [key, value] of Object.entries(source.counters) as Array<[keyof SnapshotSummary["counters"], number]>) {
    if (copy.counters[key] !== value) differences.push(`${key}: ${value} in the source, ${copy.counters[key]} in the copy`);
  }
  if (source.sha256 !== copy.sha256) differences.push(`sha256 ${source.sha256} of the source, ${copy.sha256} of the copy`);
  return differences;
}
