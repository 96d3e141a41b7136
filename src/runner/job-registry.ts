import type { RunningJob } from "../domain/queue/repair-plan.js";

interface Job {
  readonly kind: Exclude<RunningJob, "none">;
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/**
 * The jobs (drain, repair command, success command) this process runs, at most one per entry. A job registers
 * before its first await, so the next pass sees it running; finished drains are remembered by the transition time
 * of the drain they finished, so a later drain of the same entry starts afresh.
 */
export class JobRegistry {
  private readonly jobs = new Map<number, Job>();
  private readonly drainsDone = new Map<number, number | null>();
  /** Each entry's last job start or end, as a count of all of them: a health verdict is only as good as the jobs it saw. */
  private readonly generations = new Map<number, number>();
  private changes = 0;
  private closed = false;

  /** A number that changes whenever a job of the entry starts or ends, and never comes back (HealthVerdicts). */
  generation(index: number): number {
    return this.generations.get(index) ?? 0;
  }

  private bump(index: number): void {
    this.generations.set(index, ++this.changes);
  }

  kindOf(index: number): RunningJob {
    return this.jobs.get(index)?.kind ?? "none";
  }

  /** The kind of every job running now, by entry index (a copy: jobs ending later do not change it). */
  kinds(): ReadonlyMap<number, RunningJob> {
    return new Map([...this.jobs].map(([index, job]) => [index, job.kind]));
  }

  /** Whether this process finished the eviction job of the drain that started at `lastTransitionTime`. */
  drainDone(index: number, lastTransitionTime: number | null): boolean {
    return this.drainsDone.has(index) && this.drainsDone.get(index) === lastTransitionTime;
  }

  markDrainDone(index: number, lastTransitionTime: number | null): void {
    this.drainsDone.set(index, lastTransitionTime);
  }

  /**
   * Starts `work` as the entry's job. It gets an AbortSignal; its rejection is handed to `onError` (jobs report
   * their outcomes themselves, so a rejection is a bug to log, never a reason to stop the runner).
   */
  start(index: number, kind: Job["kind"], work: (signal: AbortSignal) => Promise<void>, onError: (err: unknown) => void): void {
    if (this.jobs.has(index)) throw new Error(`entry ${index} already has a ${this.jobs.get(index)?.kind} job`);
    const controller = new AbortController();
    // Closed (the term ending): the job starts aborted, so it runs no command and commits nothing.
    if (this.closed) controller.abort();
    const done = Promise.resolve()
      .then(() => work(controller.signal))
      .catch(onError)
      .finally(() => {
        this.bump(index);
        if (this.jobs.get(index)?.controller === controller) this.jobs.delete(index);
      });
    this.bump(index);
    this.jobs.set(index, { kind, controller, done });
  }

  /**
   * Starts `work` as the entry's job in place of the one running, if any: that one is aborted, and `work` starts
   * once it has ended. The new job is registered at once, so the next pass sees it and never the entry idle between
   * the two (a healthy entry's success taking over its drain).
   */
  takeOver(index: number, kind: Job["kind"], work: (signal: AbortSignal) => Promise<void>, onError: (err: unknown) => void): void {
    const previous = this.jobs.get(index);
    previous?.controller.abort();
    const controller = new AbortController();
    if (this.closed) controller.abort();
    const done = (previous?.done ?? Promise.resolve())
      .then(() => work(controller.signal))
      .catch(onError)
      .finally(() => {
        this.bump(index);
        if (this.jobs.get(index)?.controller === controller) this.jobs.delete(index);
      });
    this.bump(index);
    this.jobs.set(index, { kind, controller, done });
  }

  /** Aborts the entry's job, if any, and waits until it has ended. */
  async stop(index: number): Promise<void> {
    const job = this.jobs.get(index);
    if (!job) return;
    job.controller.abort();
    await job.done;
  }

  /**
   * Aborts every job now (their commands get SIGTERM at once) and every job started from now on; synchronous, so a
   * deposed term's commands are killed the instant the deposition is heard, whatever else is in flight.
   */
  close(): void {
    this.closed = true;
    for (const job of this.jobs.values()) job.controller.abort();
  }

  /** Aborts every job and waits for all of them. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.jobs.keys()].map((index) => this.stop(index)));
  }

  /** Waits for the jobs running now to end by themselves (tests, benchmarks). */
  async idle(): Promise<void> {
    await Promise.all([...this.jobs.values()].map((j) => j.done));
  }

  forget(index: number): void {
    this.drainsDone.delete(index);
    this.generations.delete(index);
  }
}
