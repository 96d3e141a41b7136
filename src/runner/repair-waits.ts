import { boundedWait, publishedWaits } from "../domain/queue/published-waits.js";
import type { RepairPlan } from "../domain/queue/repair-plan.js";
import type { WaitingFor } from "../domain/queue/repair-wait.js";
import type { SettingsPort } from "../store/store-port.js";
import { OutageLog } from "./outage-log.js";
import type { Log } from "../support/log.js";

/**
 * What the runner's last pass left each unfinished entry waiting for, served by the leader from memory and published
 * to the store for the other replicas. A pass that leaves the same waits writes nothing; a new term (a new runner)
 * writes at its first pass, replacing what the previous leader published.
 */
export class RepairWaits {
  private held: ReadonlyMap<number, WaitingFor> = new Map();
  private waiting: ReadonlyMap<number, WaitingFor> = new Map();
  /** What was stored last, as JSON; null before the first write. */
  private publishedText: string | null = null;

  /** The store down fails every pass's write: said once, reminded, and said again when one works. */
  private readonly outage: OutageLog;

  constructor(
    private readonly settings: Pick<SettingsPort, "setRepairWaits">,
    log: Log,
    now: () => number,
  ) {
    this.outage = new OutageLog("publishing why entries wait (tried again at the next pass)", log, now);
  }

  /** Remembers the waits of a pass whose actions are committed. */
  record(plan: Pick<RepairPlan, "held" | "waiting">): void {
    this.held = plan.held;
    this.waiting = plan.waiting;
  }

  /** The message of the rule that held the entry (kintsugi's `waitReason`), or null when no rule did. */
  waitReason(index: number): string | null {
    return this.held.get(index)?.message ?? null;
  }

  /** A rule's hold, else the entry's own step's wait, bounded as published; null when it waits for nothing. */
  waitingFor(index: number): WaitingFor | null {
    const wait = this.held.get(index) ?? this.waiting.get(index);
    return wait === undefined ? null : boundedWait(wait);
  }

  /** Stores the waits when they differ from what was stored last; a refused write is logged and tried at the next call. */
  async publish(): Promise<void> {
    const waits = publishedWaits(this.held, this.waiting);
    const text = JSON.stringify(waits);
    if (text === this.publishedText) return;
    try {
      await this.settings.setRepairWaits(waits);
      this.publishedText = text;
      this.outage.worked();
    } catch (err) {
      this.outage.failed(err);
    }
  }
}
