import type { EscalationConfig } from "../domain/escalation/repair-escalation.js";
import type { KintsugiStore } from "../store/store-port.js";
import { ESCALATION_ACTOR } from "../runner/escalation-holds.js";
import type { Violation } from "./sim-invariants.js";

/** The escalation the simulator configures when asked: two repairs within a day hold the machine. */
export const SIM_ESCALATION: EscalationConfig = { maxRepairs: 2, windowSeconds: 24 * 3600, operation: null };

/**
 * The escalation invariants, checked after every sabakan poll: a machine an operator
 * released is held again only for repairs created after its release, and a poll the queue cap short-circuited
 * stores no escalation hold (the round acts on nothing).
 */
export class EscalationInvariants {
  readonly checked = new Map<string, number>();
  violation: Violation | null = null;
  private readonly releasedAt = new Map<string, number>();
  private before = new Set<string>();

  constructor(
    private readonly store: KintsugiStore,
    private readonly config: EscalationConfig,
  ) {}

  private count(invariant: string): void {
    this.checked.set(invariant, (this.checked.get(invariant) ?? 0) + 1);
  }

  private fail(v: Violation): void {
    if (!this.violation) this.violation = v;
  }

  /** An operator released `address` at `at` (as the API does: noted, then released). */
  released(address: string, at: number): void {
    this.releasedAt.set(address, at);
  }

  /** A poll starts: the escalation holds stored before it. */
  pollStarts(): void {
    this.before = new Set(this.escalationHolds());
  }

  /** A poll ended at `now`: the holds it stored. */
  async pollEnded(now: number): Promise<void> {
    const added = this.escalationHolds().filter((a) => !this.before.has(a));
    if (added.length === 0) return;
    this.count("no-escalation-hold-from-a-capped-round");
    const outcome = (await this.store.outcomes.last(1))[0];
    if (outcome?.shortCircuit) {
      this.fail({
        invariant: "no-escalation-hold-from-a-capped-round",
        message: `the poll at ${new Date(now).toISOString()} was short-circuited by maximum-repair-queue-entries (${outcome.shortCircuit.limit}) and still held ${added.join(", ")}`,
        address: added[0] ?? null,
        entryIndex: null,
      });
    }
    for (const address of added) {
      const release = this.releasedAt.get(address);
      if (release === undefined) continue;
      this.count("no-hold-again-for-released-repairs");
      const since = Math.max(release, now - this.config.windowSeconds * 1000);
      const repairs = new Set<number>();
      for (const e of this.store.entries.list()) if (e.address === address && e.createdAt > since) repairs.add(e.index);
      for (const f of this.store.finished.list()) if (f.address === address && f.createdAt > since) repairs.add(f.entryIndex);
      if (repairs.size < this.config.maxRepairs) {
        this.fail({
          invariant: "no-hold-again-for-released-repairs",
          message: `${address} was released at ${new Date(release).toISOString()} and held again by escalation with ${repairs.size} repairs created since (max_repairs ${this.config.maxRepairs})`,
          address,
          entryIndex: null,
        });
      }
    }
  }

  private escalationHolds(): string[] {
    return this.store.holds
      .list()
      .filter((h) => h.setBy === ESCALATION_ACTOR)
      .map((h) => h.address);
  }
}
