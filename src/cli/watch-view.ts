import { escapeControlCharacters as safe } from "../domain/untrusted-text.js";

/** An entry as the watch view shows it (the API's field names and enum spellings). */
export interface WatchedEntry {
  readonly index: string;
  readonly address: string;
  readonly nodename: string;
  readonly operation: string;
  readonly status: string;
  readonly step: number;
  readonly stepCount: number | null;
  readonly stepStatus: string;
  readonly deleted: boolean;
  readonly drainBackoffCount: number;
  readonly drainBackoffExpire: string | null;
  readonly lastTransitionTime: string | null;
}

/** One event as the watch view receives it. */
export interface WatchedEvent {
  readonly kind: string;
  readonly entry: WatchedEntry;
  readonly record: { readonly time: string; readonly reason: string };
}

const COLUMNS = ["INDEX", "ADDRESS", "NODE", "OPERATION", "STATUS", "STEP", "STEP STATUS", "BACKOFF", "SINCE"] as const;

function stepText(e: WatchedEntry): string {
  return e.stepCount === null ? String(e.step + 1) : `${e.step + 1}/${e.stepCount}`;
}

function row(e: WatchedEntry): string[] {
  const backoff = e.drainBackoffExpire ? `#${e.drainBackoffCount} until ${e.drainBackoffExpire}` : e.drainBackoffCount > 0 ? `#${e.drainBackoffCount}` : "-";
  // Every cell comes from the server (and addresses, node names and operations from further out): a control
  // character in one must not move the cursor or forge a row.
  return [e.index, e.address, e.nodename || "-", e.operation, e.deleted ? `${e.status} (deleting)` : e.status, stepText(e), e.stepStatus, backoff, e.lastTransitionTime ?? "-"].map(safe);
}

/**
 * The whole screen for a terminal: a header line, a table of the entries (ordered by index) fitted to `width`,
 * and the last few events (lines made by `eventLine`). Pure, so it is tested as text; the command clears the screen
 * and prints it. Control characters in what the server sent are shown escaped (`\x1b`), never sent to the terminal.
 */
export function renderScreen(entries: readonly WatchedEntry[], recent: readonly string[], server: string, width: number): string {
  const rows = [COLUMNS.slice(), ...[...entries].sort((a, b) => Number(a.index) - Number(b.index)).map(row)];
  const widths = COLUMNS.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  const lines = rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join("  ").trimEnd().slice(0, width));
  const header = `kintsugi repair queue at ${safe(server)} — ${entries.length} entr${entries.length === 1 ? "y" : "ies"} (Ctrl-C to quit)`;
  const events = recent.length > 0 ? ["", "recent events:", ...recent.map((l) => `  ${l}`.slice(0, width))] : [];
  return [header.slice(0, width), "", ...lines, ...events].join("\n") + "\n";
}

/**
 * One line per event, for pipes and logs: time, index, address, the state after, and why. Control characters in
 * any field are escaped, so one event is always one line and cannot drive a terminal.
 */
export function eventLine(event: WatchedEvent): string {
  const e = event.entry;
  const fields = [event.record.time, `#${e.index}`, e.address, e.operation, event.kind, e.status, "step", stepText(e), `${e.stepStatus}${e.deleted ? " deleted" : ""}:`, event.record.reason];
  return fields.map(safe).join(" ");
}

/** The entries after an event: DEQUEUED removes the entry, anything else replaces it. */
export function applyEvent(entries: ReadonlyMap<string, WatchedEntry>, event: WatchedEvent): Map<string, WatchedEntry> {
  const next = new Map(entries);
  if (event.kind === "DEQUEUED") next.delete(event.entry.index);
  else next.set(event.entry.index, event.entry);
  return next;
}
