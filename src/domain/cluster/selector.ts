import { lifetimeDays, lifetimeScore, rackScore } from "./score.js";
import type { ClusterMachine } from "./types.js";

interface Entry {
  readonly rack: number;
  readonly score: number;
  readonly serial: string;
}

/** Entry order: higher score first, then smaller serial. */
const before = (a: Entry, b: Entry) => a.score > b.score || (a.score === b.score && a.serial < b.serial);

/**
 * Picks, among the candidates of one worker template, the machine with the highest selection score (rack term from
 * the live per-rack counts, lifetime term), ties by serial, in O(log racks) per pick. It relies on scores only
 * getting worse while it lives (machines get used, rack counts grow); whoever lowers a count must build a new one.
 */
export class WorkerSelector {
  private readonly lists = new Map<number, ClusterMachine[]>();
  private readonly heads = new Map<number, number>();
  private readonly lifetime = new Map<ClusterMachine, number>();
  private readonly heap: Entry[] = [];

  constructor(
    candidates: readonly ClusterMachine[],
    private readonly isUsed: (m: ClusterMachine) => boolean,
    private readonly rackCount: (rack: number) => number,
    now: number,
  ) {
    for (const m of candidates) {
      this.lifetime.set(m, lifetimeScore(lifetimeDays(m, now)));
      const list = this.lists.get(m.rack);
      if (list) list.push(m);
      else this.lists.set(m.rack, [m]);
    }
    for (const [rack, list] of this.lists) {
      // Candidates come in serial order; a stable sort keeps it among equal lifetimes.
      list.sort((a, b) => (this.lifetime.get(b) as number) - (this.lifetime.get(a) as number));
      this.heads.set(rack, 0);
      const entry = this.entry(rack);
      if (entry) this.push(entry);
    }
  }

  /** The best unused candidate now, or undefined when none is left. Does not take it. */
  peek(): ClusterMachine | undefined {
    for (;;) {
      const top = this.heap[0];
      if (top === undefined) return undefined;
      const now = this.entry(top.rack);
      if (now && now.score === top.score && now.serial === top.serial) return this.head(top.rack);
      this.pop();
      if (now) this.push(now);
    }
  }

  private head(rack: number): ClusterMachine | undefined {
    const list = this.lists.get(rack) as ClusterMachine[];
    let i = this.heads.get(rack) as number;
    while (i < list.length && this.isUsed(list[i] as ClusterMachine)) i++;
    this.heads.set(rack, i);
    return list[i];
  }

  private entry(rack: number): Entry | undefined {
    const m = this.head(rack);
    if (!m) return undefined;
    return { rack, score: rackScore(this.rackCount(rack)) + (this.lifetime.get(m) as number), serial: m.serial };
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i] as Entry, h[p] as Entry)) break;
      [h[i], h[p]] = [h[p] as Entry, h[i] as Entry];
      i = p;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop() as Entry;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < h.length && before(h[l] as Entry, h[best] as Entry)) best = l;
      if (r < h.length && before(h[r] as Entry, h[best] as Entry)) best = r;
      if (best === i) return;
      [h[i], h[best]] = [h[best] as Entry, h[i] as Entry];
      i = best;
    }
  }
}
