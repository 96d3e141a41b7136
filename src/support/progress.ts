/** How far a long piece of work is: what it did of what it has to do, and the time it expects to take still. */
export interface ProgressReport {
  readonly done: number;
  readonly total: number;
  readonly elapsedMs: number;
  /** Null until something is done (no rate to tell it from). */
  readonly leftMs: number | null;
  /** Whether this is the last report (the work is done). */
  readonly finished: boolean;
}

/** A counter of done work that reports at most once a `everyMs`, and once more when done reaches the total. */
export interface ProgressCounter {
  /** `done` so far (not an increment). */
  update(done: number): void;
  /** Reports the end whatever the time (the total may have been an estimate). */
  finish(): void;
}

/**
 * Counts work toward `total` and hands `report` a {@link ProgressReport} at most once every `everyMs` (and at the end);
 * the time left is the elapsed time scaled by what is left, which holds for work done at a steady rate (rows).
 */
export function progressCounter(total: number, report: (p: ProgressReport) => void, clock: () => number = Date.now, everyMs = 1_000): ProgressCounter {
  const start = clock();
  let last = start;
  let done = 0;
  const make = (now: number, finished: boolean): ProgressReport => {
    const elapsedMs = now - start;
    const leftMs = finished ? 0 : done === 0 ? null : Math.max(0, Math.round((elapsedMs * (total - done)) / done));
    return { done, total, elapsedMs, leftMs, finished };
  };
  return {
    update(value) {
      done = value;
      const now = clock();
      if (now - last < everyMs) return;
      last = now;
      report(make(now, false));
    },
    finish() {
      report(make(clock(), true));
    },
  };
}

/** A duration as an operator reads it: `45 s`, `3 min 20 s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** One line of `p` about `what` (`rows`): `412,000 of 1,000,000 rows (41%), 1 min 12 s left`; at the end `1,000,000 rows, done in 2 min 3 s`. */
export function describeProgress(what: string, p: ProgressReport): string {
  // The total may be an estimate (a copy counts keys): the last line says what was done.
  if (p.finished) return `${p.done.toLocaleString("en")} ${what}, done in ${formatDuration(p.elapsedMs)}`;
  const percent = p.total === 0 ? 100 : Math.min(100, Math.floor((p.done * 100) / p.total));
  const counts = `${p.done.toLocaleString("en")} of ${p.total.toLocaleString("en")} ${what} (${percent}%)`;
  return `${counts}, ${p.leftMs === null ? "time left unknown yet" : `${formatDuration(p.leftMs)} left`}`;
}
