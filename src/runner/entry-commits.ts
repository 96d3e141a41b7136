import { nodeEventFor } from "../domain/queue/repair-events.js";
import type { RepairEntry } from "../domain/queue/repair-entry.js";
import { RUNNER_ACTOR } from "../domain/queue/repair-history.js";
import type { EntryTransition } from "../domain/queue/repair-plan.js";
import type { EntryWrite, RepairChange } from "../store/store-port.js";
import type { CommitIfUnchanged } from "./repair-jobs.js";
import type { RunnerDeps } from "./runner-deps.js";

const sameEntry = (a: RepairEntry, b: RepairEntry) => JSON.stringify(a) === JSON.stringify(b);
const entryWrite = (t: EntryTransition): EntryWrite => ({ entry: t.after, kind: t.kind, reason: t.reason, detail: t.detail ?? null });

/** What the runner lends its commits: the entries it is dequeuing, and how to keep a Node event's write going. */
export interface EntryCommitContext {
  readonly dequeuing: ReadonlySet<number>;
  readonly inBackground: (work: Promise<void>) => void;
  readonly signal: () => AbortSignal;
}

/**
 * The runner's writes to entries, each re-checked inside the write against what it was decided on (so a decision
 * taken on an older read never overwrites a deletion or another writer's change), and the Node events of what they
 * changed.
 */
export class EntryCommits {
  constructor(
    private readonly deps: Pick<RunnerDeps, "entries" | "nodes" | "now" | "log">,
    private readonly ctx: EntryCommitContext,
  ) {}

  /**
   * Commits `transitions` in one write when the stored entry is still `decidedOn` (checked inside the write), and
   * records their Node events. Resolves with the entry after them, or null when the store declined.
   */
  async commit(decidedOn: RepairEntry, transitions: readonly EntryTransition[]): Promise<RepairEntry | null> {
    const unchanged = (current: RepairEntry | null) => current !== null && sameEntry(current, decidedOn) && !this.ctx.dequeuing.has(decidedOn.index);
    if (transitions.length === 0) return unchanged(this.deps.entries.get(decidedOn.index)) ? decidedOn : null;
    const writes = transitions.map(entryWrite);
    const changes = await this.deps.entries.change(decidedOn.index, (current) => (unchanged(current) ? writes : null), this.deps.now(), RUNNER_ACTOR);
    this.recordNodeEvents(changes);
    return changes.at(-1)?.entry ?? null;
  }

  /** A job's commit: made only while the entry is still in the step the job worked on (see CommitIfUnchanged). */
  readonly commitIfUnchanged: CommitIfUnchanged = async (worked, decide) => {
    // Set by `decide` inside the write (the last call wins if the store calls it again).
    let decided = null as EntryTransition | null;
    const sameStep = (current: RepairEntry) =>
      current.status === worked.status &&
      current.step === worked.step &&
      current.stepStatus === worked.stepStatus &&
      current.lastTransitionTime === worked.lastTransitionTime;
    const changes = await this.deps.entries.change(
      worked.index,
      (current) => {
        decided = current === null || current.deleted || this.ctx.dequeuing.has(worked.index) || !sameStep(current) ? null : decide(current);
        return decided === null ? null : [entryWrite(decided)];
      },
      this.deps.now(),
      RUNNER_ACTOR,
    );
    if (changes.length === 0 || decided === null) return null;
    this.recordNodeEvents(changes);
    return decided;
  };

  /** Records the Node events of committed changes (each judged against the entry just before it). */
  private recordNodeEvents(changes: readonly RepairChange[]): void {
    const nodes = this.deps.nodes;
    if (!nodes) return;
    for (const { entry, previous, record } of changes) {
      const event = previous === null ? null : nodeEventFor(previous, { after: entry, kind: record.kind, reason: record.reason });
      if (event === null) continue;
      const node = entry.nodename;
      this.ctx.inBackground(
        nodes
          .recordEvent(node, event, { signal: this.ctx.signal() })
          .catch((err: unknown) => this.deps.log.warn("cannot record a node event", { node, err: (err as Error).message })),
      );
    }
  }
}
