import type { CommandRun } from "./command-log.js";

/** One history record of an entry as the API serves it, its time in milliseconds. */
export interface HistoryRecordView {
  readonly time: number;
  readonly kind: string;
  readonly reason: string;
  readonly detail: string | null;
  /** 0-based, as the API's `step`. */
  readonly step: number;
  readonly status: string;
  readonly actor: string;
  /** The replica that wrote it, where the API says (null where it does not). */
  readonly replica: string | null;
}

/** One entry with its whole history, as read from a live replica at the end of a run. */
export interface EntryView {
  readonly index: number;
  readonly address: string;
  readonly status: string;
  readonly history: readonly HistoryRecordView[];
}

/** A record the runner wrote, with the replica that wrote it: from the API's `replica`, else derived. */
export interface RunnerRecord extends HistoryRecordView {
  readonly entry: number;
  readonly writer: string;
  /** How the writer is known: the API says so, or the command log's run of the record's operation id. */
  readonly writerFrom: "api" | "command log";
}

/** The note committed before a repair command starts. */
export interface AttemptNote {
  readonly entry: number;
  /** 1-based. */
  readonly step: number;
  readonly attempt: number;
  readonly operationId: string;
  /** Its position in the entry's history. */
  readonly at: number;
  readonly time: number;
}

const RUNNER_ACTOR = "kintsugi";
const ATTEMPT_NOTE = /^step (\d+): starting the repair command, attempt (\d+) \(operation id ([^)\s]+)\)/;

/** The attempt notes of `entry`'s history, in order. */
export function attemptNotes(entry: EntryView): AttemptNote[] {
  return entry.history.flatMap((record, at) => {
    const m = ATTEMPT_NOTE.exec(record.reason);
    return m ? [{ entry: entry.index, step: Number(m[1]), attempt: Number(m[2]), operationId: m[3] as string, at, time: record.time }] : [];
  });
}

/** Whether `record` is the outcome the job that ran step `step`'s command commits (success or failure). */
export function isCommandOutcome(record: HistoryRecordView, step: number): boolean {
  return record.reason.startsWith(`step ${step}: repair command succeeded`) || record.reason.startsWith(`step ${step}: repair command failed`);
}

/**
 * The runner's records whose writer is known. The API's `replica` names it where the API has the field; without it,
 * an attempt note is the replica whose command logged its operation id, and a command's outcome the replica of the
 * step's last attempt note before it (only the job that ran a command commits its outcome). `unattributed` counts
 * the runner's records neither way names.
 */
export function runnerRecords(entries: readonly EntryView[], runs: readonly CommandRun[]): { records: RunnerRecord[]; unattributed: number } {
  const runnerOf = new Map(runs.map((r) => [r.operationId, r.replica]));
  const records: RunnerRecord[] = [];
  let unattributed = 0;
  for (const entry of entries) {
    const notes = attemptNotes(entry);
    entry.history.forEach((record, at) => {
      if (record.actor !== RUNNER_ACTOR) return;
      if (record.replica !== null) {
        records.push({ ...record, entry: entry.index, writer: record.replica, writerFrom: "api" });
        return;
      }
      const note = notes.find((n) => n.at === at) ?? notes.filter((n) => n.at < at && isCommandOutcome(record, n.step)).at(-1);
      const writer = note ? runnerOf.get(note.operationId) : undefined;
      if (writer === undefined) unattributed++;
      else records.push({ ...record, entry: entry.index, writer, writerFrom: "command log" });
    });
  }
  return { records, unattributed };
}
