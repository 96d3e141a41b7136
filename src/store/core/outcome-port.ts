import { KEPT_OUTCOMES, type AutoRepairOutcome } from "../../domain/intake/auto-repair-outcome.js";
import type { AutoRepairOutcomePort } from "../store-port.js";
import type { StoreKeys } from "./store-keys.js";
import type { StoreMirror, Versioned } from "./store-mirror.js";
import { outcomeValue, type SequenceHeadValue } from "./value-schemas.js";
import { decodeValue, encodeValue, readOrLog, storedOutcome } from "./store-values.js";
import { rangePages } from "../kv/kv-driver.js";
import { stampedWrite, type WritePlan } from "./store-writer.js";
import { CorePort } from "./core-port.js";

/**
 * The next sequence of records kept under a head: the head's, or past the newest record when the head was lost, so
 * a sequence is never handed out twice. A head that cannot be read stops the write.
 */
export function nextSequence(head: Versioned<SequenceHeadValue | null> | null, key: string, newest: number): number {
  if (head !== null && head.value === null) throw new Error(`${key} cannot be read (see the log); refusing to write`);
  return Math.max(head?.value?.next ?? 1, newest + 1);
}

/** The write that records one poll outcome: the next sequence from the head, the oldest beyond {@link KEPT_OUTCOMES} dropped. */
export function outcomeWrite(
  mirror: StoreMirror,
  keys: StoreKeys,
  outcome: Omit<AutoRepairOutcome, "sequence">,
  writeId: string,
): WritePlan<AutoRepairOutcome> {
  const sequence = nextSequence(mirror.outcomesHead, keys.outcomesHead, mirror.newestOutcomeSequence());
  const stored = storedOutcome({ ...outcome, sequence });
  const puts = [{ key: keys.outcome(sequence), value: encodeValue({ outcome: stored }) }];
  const deletes = sequence > KEPT_OUTCOMES ? [keys.outcomes(0, sequence - KEPT_OUTCOMES)] : [];
  return stampedWrite(keys.outcomesHead, mirror.outcomesHead, writeId, { next: sequence + 1 }, { puts, deletes }, stored);
}

/** One outcome can list thousands of skipped machines, and an etcd answer is limited to 4 MiB. */
const OUTCOME_PAGE = 50;

/**
 * The outcomes of sabakan polls. The mirror knows only which are kept (a storm's thousand outcomes of a thousand
 * skipped machines each would otherwise sit in every replica's memory); they are read from the store when asked.
 */
export class CoreOutcomePort extends CorePort implements AutoRepairOutcomePort {
  record(outcome: Omit<AutoRepairOutcome, "sequence">): Promise<AutoRepairOutcome> {
    return this.writer.write("recording a poll outcome", (writeId) => outcomeWrite(this.mirror, this.keys, outcome, writeId));
  }

  async last(count: number | null): Promise<AutoRepairOutcome[]> {
    const n = Math.min(count ?? KEPT_OUTCOMES, KEPT_OUTCOMES);
    const newest = this.mirror.newestOutcomeSequence();
    if (n <= 0 || newest === 0) return [];
    const outcomes: AutoRepairOutcome[] = [];
    const range = { start: this.keys.outcome(Math.max(0, newest - n + 1)), end: this.keys.outcomes(0, newest).end };
    for await (const page of rangePages(this.driver, "reading the poll outcomes", range, { limit: OUTCOME_PAGE })) {
      for (const kv of page.kvs) {
        const read = readOrLog(this.log, "a poll outcome in the store cannot be read; it is left out", kv.key, () =>
          decodeValue(outcomeValue, kv.key, kv.value),
        );
        if (read !== null) outcomes.push(storedOutcome(read.outcome));
        // A turn of the event loop after each: an outcome of a thousand skipped machines takes about 10 ms to check,
        // and the status page's five in one go held /health and every other request for all of them.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return outcomes;
  }
}
