import type { RepairEntry, RepairStatus, RepairStepStatus } from "../../../../domain/queue/repair-entry.js";
import { parseStoredEvidence } from "../../../repair-evidence-schema.js";
import type { RepairHistoryKind, RepairHistoryRecord } from "../../../../domain/queue/repair-history.js";

/** A repair_entries row as SQLite returns it. */
export interface RepairEntryRow {
  idx: number;
  address: string;
  nodename: string;
  serial: string | null;
  machine_type: string;
  operation: string;
  status: RepairStatus;
  step: number;
  step_status: RepairStepStatus;
  deleted: 0 | 1;
  last_transition_time: number | null;
  drain_backoff_count: number;
  drain_backoff_expire: number | null;
  created_at: number;
  source: string;
  /** JSON (see migration 008); null: no evidence. */
  evidence: string | null;
}

/** A repair_history row as SQLite returns it. */
export interface RepairHistoryRow {
  seq: number;
  entry_index: number;
  time: number;
  kind: RepairHistoryKind;
  reason: string;
  detail: string | null;
  status: RepairStatus;
  step: number;
  step_status: RepairStepStatus;
  deleted: 0 | 1;
  actor: string;
}

export function entryFromRow(r: RepairEntryRow): RepairEntry {
  return {
    index: r.idx,
    address: r.address,
    nodename: r.nodename,
    serial: r.serial,
    machineType: r.machine_type,
    operation: r.operation,
    status: r.status,
    step: r.step,
    stepStatus: r.step_status,
    deleted: r.deleted === 1,
    lastTransitionTime: r.last_transition_time,
    drainBackoffCount: r.drain_backoff_count,
    drainBackoffExpire: r.drain_backoff_expire,
    createdAt: r.created_at,
    source: r.source,
    ...(r.evidence !== null && { evidence: parseStoredEvidence(r.evidence, `repair entry ${r.idx}`) }),
  };
}

export function historyFromRow(r: RepairHistoryRow): RepairHistoryRecord {
  return {
    sequence: r.seq,
    entryIndex: r.entry_index,
    time: r.time,
    kind: r.kind,
    reason: r.reason,
    detail: r.detail,
    status: r.status,
    step: r.step,
    stepStatus: r.step_status,
    deleted: r.deleted === 1,
    actor: r.actor,
  };
}
