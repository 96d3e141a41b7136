/** The first invariant that failed, and where. */
export interface Violation {
  readonly invariant: string;
  readonly message: string;
  readonly address: string | null;
  readonly entryIndex: number | null;
}

/**
 * The invariants' shared tally: how often each was checked (the report's figures) and the first violation, which
 * stops the run. Every invariant checks through `check`, so a check that never runs shows as a zero in the report.
 */
export class Checks {
  readonly checked = new Map<string, number>();
  violation: Violation | null = null;

  count(invariant: string, times = 1): void {
    this.checked.set(invariant, (this.checked.get(invariant) ?? 0) + times);
  }

  /** Counts one check of `invariant`; when `ok` is false, keeps the violation (the first one wins). */
  check(invariant: string, ok: boolean, message: () => string, address: string | null = null, entryIndex: number | null = null): boolean {
    this.count(invariant);
    if (!ok) this.fail({ invariant, message: message(), address, entryIndex });
    return ok;
  }

  fail(v: Violation): void {
    if (!this.violation) this.violation = v;
  }

  /** Every invariant checked, with its count, merged with another tally's (the generation invariants keep their own). */
  merged(...others: ReadonlyArray<ReadonlyMap<string, number>>): Map<string, number> {
    const all = new Map(this.checked);
    for (const other of others) for (const [k, n] of other) all.set(k, (all.get(k) ?? 0) + n);
    return all;
  }
}
