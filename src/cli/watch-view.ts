import { escapeControlCharacters as safe } from "../domain/shared/untrusted-text.js";
import { fit, layoutTable, type TableColumn } from "./watch-table.js";

/** An entry as the API sends it to the watch (the API's field names and enum spellings). */
export interface EntryFields {
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

/** What an entry waits for, as the API says (`RepairWait`). */
export interface WaitFields {
  readonly kind: string;
  readonly message: string;
}

/** An entry as the watch view shows it: with the reason of its latest change ("" when unknown) and its wait. */
export interface WatchedEntry extends EntryFields {
  readonly reason: string;
  /** What it waits for, from the latest `repairWaits` (or the first read); null when nothing. */
  readonly wait: WaitFields | null;
}

/** One entry's wait as `repairWaits` sends it. */
export interface SentWait {
  readonly index: string;
  readonly waitingFor: WaitFields;
}

/** One event as the watch view receives it. */
export interface WatchedEvent {
  readonly kind: string;
  readonly entry: EntryFields;
  readonly record: { readonly time: string; readonly reason: string };
}

/** What the terminal shows: the entries, the latest events, and a line about the connection when there is news. */
export interface Screen {
  readonly entries: readonly WatchedEntry[];
  readonly recent: readonly WatchedEvent[];
  readonly server: string;
  readonly width: number;
  readonly status: string | null;
}

// On a narrow terminal the time goes first, then the node, then the back-off; the reason always stays.
const COLUMNS: readonly TableColumn[] = [
  { title: "INDEX" },
  { title: "ADDRESS" },
  { title: "NODE", dropOrder: 2 },
  { title: "OPERATION" },
  { title: "STATUS" },
  { title: "STEP" },
  { title: "STEP STATUS" },
  { title: "BACKOFF", dropOrder: 3 },
  { title: "SINCE", dropOrder: 1 },
];

function stepText(e: EntryFields): string {
  return e.stepCount === null ? String(e.step + 1) : `${e.step + 1}/${e.stepCount}`;
}

function row(e: WatchedEntry): string[] {
  const backoff = e.drainBackoffExpire ? `#${e.drainBackoffCount} until ${e.drainBackoffExpire}` : e.drainBackoffCount > 0 ? `#${e.drainBackoffCount}` : "-";
  // Every cell comes from the server (and addresses, node names and operations from further out): a control
  // character in one must not move the cursor or forge a row.
  const cells = [
    e.index,
    e.address,
    e.nodename || "-",
    e.operation,
    e.deleted ? `${e.status} (deleting)` : e.status,
    stepText(e),
    e.stepStatus,
    backoff,
    e.lastTransitionTime ?? "-",
    e.reason,
  ];
  return cells.map(safe);
}

const isUnfinished = (e: EntryFields) => !e.deleted && (e.status === "QUEUED" || e.status === "PROCESSING");

/** The line under an unfinished entry's row that says what it waits for ("" when nothing). */
function waitNote(e: WatchedEntry): string {
  return e.wait !== null && isUnfinished(e) ? safe(`waits (${e.wait.kind}): ${e.wait.message}`) : "";
}

/**
 * An event on the screen, fitted to `width`: the time of day (UTC), the entry, what happened (a transition by the
 * state it reached, anything else by its kind) and why.
 */
function screenEventLine(event: WatchedEvent, width: number): string {
  const time = /^\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)/.exec(event.record.time)?.[1] ?? event.record.time;
  const e = event.entry;
  const what = event.kind === "TRANSITION" ? `${e.status} ${stepText(e)}` : event.kind;
  return fit(`  ${[time, `#${e.index}`, e.address, `${what}:`, event.record.reason].map(safe).join(" ")}`, width);
}

/**
 * The whole screen for a terminal: a header line, the connection's news if any, a table of the entries (ordered
 * by index) with the reason of each one's latest change, fitted to `width` so that no line is longer and the reason
 * stays visible (see layoutTable), under each unfinished entry that waits a line saying what for, and the latest
 * events. Pure, so it is tested as text; the command clears the
 * screen and prints it. Control characters in what the server sent are shown escaped (`\x1b`), never sent to the
 * terminal.
 */
export function renderScreen(screen: Screen): string {
  const { entries, width } = screen;
  const sorted = [...entries].sort((a, b) => Number(a.index) - Number(b.index));
  const header = `kintsugi repair queue at ${safe(screen.server)} — ${entries.length} entr${entries.length === 1 ? "y" : "ies"} (Ctrl-C to quit)`;
  const status = screen.status === null ? [] : [fit(safe(screen.status), width)];
  const table = layoutTable(COLUMNS, "REASON", sorted.map(row), width, sorted.map(waitNote));
  const events = screen.recent.length > 0 ? ["", "recent events:", ...screen.recent.map((event) => screenEventLine(event, width))] : [];
  return [fit(header, width), ...status, "", ...table, ...events].join("\n") + "\n";
}

/**
 * One line per event, for pipes and logs: time, index, address, the state after, and why. Control characters in
 * any field are escaped, so one event is always one line and cannot drive a terminal. `time` is when the line is
 * written (the piped watch stamps every line, events and waits, with its arrival, so the lines are in time order);
 * the event's own record time, in whole seconds, is the default.
 */
export function eventLine(event: WatchedEvent, time: string = event.record.time): string {
  const e = event.entry;
  const fields = [
    time,
    `#${e.index}`,
    e.address,
    e.operation,
    event.kind,
    e.status,
    "step",
    stepText(e),
    `${e.stepStatus}${e.deleted ? " deleted" : ""}:`,
    event.record.reason,
  ];
  return fields.map(safe).join(" ");
}

/**
 * The entries after an event: DEQUEUED removes the entry, anything else replaces it (with the event's reason). Its
 * wait stays until the next `repairWaits` says otherwise (the leader publishes waits after the pass that moved it).
 */
export function applyEvent(entries: ReadonlyMap<string, WatchedEntry>, event: WatchedEvent): Map<string, WatchedEntry> {
  const next = new Map(entries);
  if (event.kind === "DEQUEUED") next.delete(event.entry.index);
  else next.set(event.entry.index, { ...event.entry, reason: event.record.reason, wait: entries.get(event.entry.index)?.wait ?? null });
  return next;
}

/**
 * The entries after a `repairWaits` message (the whole list: an entry it leaves out waits for nothing), and the
 * unfinished entries whose wait changed to a new one, for the one-line mode.
 */
export function applyWaits(
  entries: ReadonlyMap<string, WatchedEntry>,
  waits: readonly SentWait[],
): { entries: Map<string, WatchedEntry>; changed: WatchedEntry[] } {
  const byIndex = new Map(waits.map((w) => [w.index, w.waitingFor]));
  const next = new Map<string, WatchedEntry>();
  const changed: WatchedEntry[] = [];
  for (const [index, e] of entries) {
    const found = byIndex.get(index);
    const wait = found === undefined ? null : { kind: found.kind, message: found.message };
    const updated = { ...e, wait };
    next.set(index, updated);
    if (wait !== null && isUnfinished(e) && (wait.kind !== e.wait?.kind || wait.message !== e.wait.message)) changed.push(updated);
  }
  return { entries: next, changed };
}

/**
 * One line saying what an entry now waits for, for pipes and logs, in the shape of {@link eventLine}: `time` (when
 * the watch learned it), index, address, operation, WAITING, the kind, and the message; control characters escaped.
 */
export function waitLine(e: WatchedEntry, time: string): string {
  const wait = e.wait ?? { kind: "NOTHING", message: "" };
  return [time, `#${e.index}`, e.address, e.operation, "WAITING", `${wait.kind}:`, wait.message].map(safe).join(" ");
}
