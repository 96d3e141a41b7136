import type { RepairEntry } from "../../domain/queue/repair-entry.js";
import type { EnqueueDecision, EnqueueResult, RepairChange } from "../store-port.js";
import type { ReplayRecord } from "../poll-record-schema.js";
import { outcomeWrite } from "./outcome-port.js";
import type { CorePollRecordPort } from "./poll-record-port.js";
import { largestFitting } from "./write-limits.js";
import type { NoWrite, WritePlan } from "./store-writer.js";
import type { QueuePlan } from "./queue-plan.js";
import { CorePort, type CoreParts } from "./core-port.js";

/** What one part committed (the outcome: closing part only) and the write id it stamped. */
interface PartResult {
  readonly changes: readonly RepairChange[];
  readonly outcome: EnqueueResult["outcome"];
  readonly closing: boolean;
  readonly stamped: string;
}

type Adds = EnqueueDecision["add"];

/**
 * The poller's decide-and-commit. The decision is made once on the mirror (again only while nothing of it is
 * committed) and committed in as few parts as etcd's limits allow, in one turn of the writer: parts of new entries,
 * then a closing part with the rest, the outcome and the replay records. A part after the first goes on only while
 * the queue head still carries the previous part's write id: when another replica changed the queue in between, the
 * rest is dropped. A crash between parts leaves fewer entries than decided, never more (each part is a subset of one
 * decision made under the cap).
 */
export class CoreEnqueue extends CorePort {
  constructor(
    parts: CoreParts,
    private readonly records: CorePollRecordPort,
  ) {
    super(parts);
  }

  run<D extends EnqueueDecision>(decide: (entries: readonly RepairEntry[]) => D, now: number, actor: string): Promise<EnqueueResult<D>> {
    return this.writer.inTurn(async (commit) => {
      const decided: { last: D | null } = { last: null };
      const enqueued: RepairChange[] = [];
      let previous: string | null = null;
      let stopped = false;
      for (;;) {
        const stampedBefore = previous;
        const part = await commit("enqueuing repair entries", (writeId): WritePlan<PartResult> | NoWrite<null> => {
          const d = stampedBefore === null || decided.last === null ? decide(this.mirror.entryList()) : decided.last;
          decided.last = d;
          stopped = stampedBefore !== null && this.mirror.queueHead?.value?.w !== stampedBefore;
          const rest = stopped ? [] : d.add.slice(enqueued.length);
          const closing = this.closingPart(d, rest, enqueued, writeId, now, actor);
          if (closing === null) return { none: null };
          if (rest.length === 0 || this.writer.fits(closing)) return closing;
          const fitting = largestFitting(
            rest.length - 1,
            this.writer.limits.maxTxnOps,
            (n) => this.addsPart(rest.slice(0, n), writeId, now, actor),
            (p) => this.writer.fits(p),
          );
          return fitting.plan;
        });
        const decision = decided.last;
        if (decision === null) throw new Error("enqueue committed without a decision: the writer never called the plan");
        if (part === null) return { changes: enqueued, outcome: null, decision };
        enqueued.push(...part.changes);
        previous = part.stamped;
        if (part.closing) {
          if (stopped) {
            this.log.warn("a poll's new repair entries were committed in part: the queue changed between parts; the next poll decides afresh", {
              decided: decision.add.length,
              enqueued: enqueued.length,
            });
          }
          return { changes: enqueued, outcome: part.outcome, decision };
        }
      }
    });
  }

  private addsPart(adds: Adds, writeId: string, now: number, actor: string): WritePlan<PartResult> {
    const plan = this.queueWith(adds, now, actor);
    return plan.plan(writeId, { changes: plan.changes, outcome: null, closing: false, stamped: writeId });
  }

  private queueWith(adds: Adds, now: number, actor: string): QueuePlan {
    const plan = this.queuePlan();
    for (const { entry, reason } of adds) plan.add(entry, reason, now, actor);
    return plan;
  }

  /** The last part: `adds` with the outcome of every entry this poll enqueued, and the records; null: nothing to write. */
  private closingPart(
    decision: EnqueueDecision,
    adds: Adds,
    before: readonly RepairChange[],
    writeId: string,
    now: number,
    actor: string,
  ): WritePlan<PartResult> | null {
    const plan = this.queueWith(adds, now, actor);
    const stored = [...before, ...plan.changes].map((c) => c.entry);
    const outcome = decision.outcome === null ? null : outcomeWrite(this.mirror, this.keys, decision.outcome(stored), writeId);
    const records: ReplayRecord[] = [];
    if (decision.pollRecord) records.push({ area: "intake", record: decision.pollRecord });
    if (decision.remediationRecord) records.push({ area: "health-check", record: decision.remediationRecord });
    const kept = records.length === 0 ? null : this.records.keepWrite(records, writeId);
    const others = [outcome, kept].filter((p) => p !== null);
    if (plan.empty && others.length === 0) return null;
    return plan.plan(writeId, { changes: plan.changes, outcome: outcome?.result ?? null, closing: true, stamped: writeId }, others);
  }
}
