import { KEPT_OUTCOMES, type AutoRepairOutcome } from "../../domain/auto-repair-outcome.js";
import type { AutoRepairOutcomePort } from "../store-port.js";
import type { EtcdKeys } from "./etcd-keys.js";
import type { EtcdMirror, Versioned } from "./etcd-mirror.js";
import type { SequenceHeadValue } from "./etcd-value-schemas.js";
import { encodeValue, storedOutcome } from "./etcd-values.js";
import type { EtcdWriter, WritePlan } from "./etcd-writer.js";

/**
 * The next sequence of records kept under a head: the head's, or past the newest record when the head was lost, so
 * a sequence is never handed out twice. A head that cannot be read stops the write.
 */
export function nextSequence(head: Versioned<SequenceHeadValue | null> | null, key: string, newest: number): number {
  if (head !== null && head.value === null) throw new Error(`${key} cannot be read (see the log); refusing to write`);
  return Math.max(head?.value?.next ?? 1, newest + 1);
}

/**
 * The parts of a write that record one poll outcome: it takes the next sequence from the outcomes head (compared and
 * advanced), and drops the outcomes beyond the newest `keep` in the same transaction.
 */
export function outcomeWrite(
  mirror: EtcdMirror,
  keys: EtcdKeys,
  outcome: Omit<AutoRepairOutcome, "sequence">,
  writeId: string,
  keep = KEPT_OUTCOMES,
): Omit<WritePlan<AutoRepairOutcome>, "result"> & { readonly outcome: AutoRepairOutcome } {
  const sequence = nextSequence(mirror.outcomesHead, keys.outcomesHead, mirror.outcomeList().at(-1)?.sequence ?? 0);
  const stored = storedOutcome({ ...outcome, sequence });
  return {
    compares: [{ key: keys.outcomesHead, modRevision: mirror.outcomesHead?.modRevision ?? 0 }],
    puts: [
      { key: keys.outcome(sequence), value: encodeValue({ outcome: stored }) },
      { key: keys.outcomesHead, value: encodeValue({ w: writeId, next: sequence + 1 }) },
    ],
    deletes: sequence > keep ? [keys.outcomes(0, sequence - keep)] : [],
    stamp: keys.outcomesHead,
    outcome: stored,
  };
}

/** The outcomes of sabakan polls on etcd, newest {@link KEPT_OUTCOMES} kept. */
export class EtcdOutcomePort implements AutoRepairOutcomePort {
  constructor(
    private readonly keys: EtcdKeys,
    private readonly mirror: EtcdMirror,
    private readonly writer: EtcdWriter,
  ) {}

  record(outcome: Omit<AutoRepairOutcome, "sequence">): Promise<AutoRepairOutcome> {
    return this.writer.write("recording a poll outcome", (writeId) => {
      const { outcome: result, ...parts } = outcomeWrite(this.mirror, this.keys, outcome, writeId);
      return { ...parts, result };
    });
  }

  last(count: number | null): AutoRepairOutcome[] {
    const all = this.mirror.outcomeList();
    const n = count ?? KEPT_OUTCOMES;
    return n <= 0 ? [] : all.slice(-n);
  }
}
