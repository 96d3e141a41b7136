import type { FinishedRepair } from "../queue/finished-repair.js";
import type { RepairEntry } from "../queue/repair-entry.js";
import type { EscalationReleases } from "./escalation-releases.js";

/**
 * `repair.escalation`: a machine that already had `maxRepairs` entries created within the last `windowSeconds` is a
 * repeat offender. With `operation`, intake and health-check remediation enqueue that operation instead of their
 * own (e.g. `retire`); without it, they put the machine on hold.
 */
export interface EscalationConfig {
  readonly maxRepairs: number;
  readonly windowSeconds: number;
  /** null: hold the machine instead. */
  readonly operation: string | null;
}

/**
 * What escalation reads: every entry in the queue, the store's finished-repair records (the dequeued ones), and when
 * operators last released each machine (absent: never).
 */
export interface RepairRecord {
  readonly entries: readonly RepairEntry[];
  readonly finished: readonly FinishedRepair[];
  readonly releases?: EscalationReleases;
}

/** One repair of a machine as escalation counts it. */
export interface CountedRepair {
  readonly entryIndex: number;
  readonly operation: string;
  readonly createdAt: number;
}

/** What escalation decides for one machine: enqueue another operation, or hold it (and alert). */
export type Escalation =
  | { readonly kind: "operation"; readonly operation: string; readonly repairs: number; readonly reason: string }
  | { readonly kind: "hold"; readonly repairs: number; readonly reason: string; readonly holdReason: string };

/** The window as people say it: "1h", "2d", "90m", "1d 6h", "45s". */
export function describeWindow(seconds: number): string {
  const units: Array<[number, string]> = [
    [86_400, "d"],
    [3600, "h"],
    [60, "m"],
    [1, "s"],
  ];
  const parts: string[] = [];
  let left = Math.max(0, Math.floor(seconds));
  for (const [size, unit] of units) {
    if (left >= size) {
      parts.push(`${Math.floor(left / size)}${unit}`);
      left %= size;
    }
  }
  return parts.length === 0 ? "0s" : parts.slice(0, 2).join(" ");
}

/**
 * The repairs of `address` created within the window ending at `now`: `createdAt` after `now - windowSeconds`
 * (an entry exactly as old as the window is outside it) and after the machine's last release (kintsugi: the repairs
 * an operator released it from count no more), whatever became of them (queued, running, finished or dequeued), each
 * entry once (one still queued may also have a record), oldest first.
 */
export function repairsInWindow(address: string, record: RepairRecord, windowSeconds: number, now: number): CountedRepair[] {
  const since = Math.max(now - windowSeconds * 1000, record.releases?.get(address) ?? -Infinity);
  const found = new Map<number, CountedRepair>();
  const note = (entryIndex: number, operation: string, createdAt: number) => {
    if (createdAt > since) found.set(entryIndex, { entryIndex, operation, createdAt });
  };
  for (const r of record.finished) if (r.address === address) note(r.entryIndex, r.operation, r.createdAt);
  for (const e of record.entries) if (e.address === address) note(e.index, e.operation, e.createdAt);
  return [...found.values()].sort((a, b) => a.createdAt - b.createdAt || a.entryIndex - b.entryIndex);
}

/**
 * Whether the next repair of `address` is escalated, and how; null when it is not (no `repair.escalation`, or fewer
 * than `maxRepairs` repairs in the window: CKE's behaviour).
 *
 * The escalation operation is not escalated in a loop: when the window already holds an entry of that operation
 * (the machine was escalated once and is back), the machine is held instead of being given the operation again.
 */
export function decideEscalation(config: EscalationConfig | undefined, address: string, record: RepairRecord, now: number): Escalation | null {
  if (config === undefined) return null;
  const repairs = repairsInWindow(address, record, config.windowSeconds, now);
  if (repairs.length < config.maxRepairs) return null;
  const holdReason = `repaired ${repairs.length} time${repairs.length === 1 ? "" : "s"} in ${describeWindow(config.windowSeconds)}`;
  if (config.operation === null) return { kind: "hold", repairs: repairs.length, reason: `${holdReason}: held`, holdReason };
  const escalated = repairs.find((r) => r.operation === config.operation);
  if (escalated !== undefined) {
    const why = `${holdReason}, already escalated to ${config.operation} (entry ${escalated.entryIndex})`;
    return { kind: "hold", repairs: repairs.length, reason: `${why}: held`, holdReason: why };
  }
  return { kind: "operation", operation: config.operation, repairs: repairs.length, reason: `${holdReason}: enqueued ${config.operation} instead` };
}
