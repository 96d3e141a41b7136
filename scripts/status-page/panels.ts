// The queue, the holds, the latest poll outcomes with their skips, and the last day's repairs.
import { clock, el, table, timeCell, visible } from "./dom.js";
import { isUnfinished, type Entry, type Hold, type Outcome } from "./model.js";
import { kindChanges, kindsLine } from "./poll-changes.js";
import { stripHours, type EndedRepair } from "./timeline.js";

/** More rows than this in one list are summed up in a line: the page stays responsive at any size. */
export const MAX_ROWS = 200;
const MARK_CLASSES: Readonly<Record<string, string>> = { SUCCEEDED: "ok", FAILED: "failed", DEQUEUED: "dequeued" };

function capped<T>(items: readonly T[]): { readonly shown: readonly T[]; readonly more: string | null } {
  if (items.length <= MAX_ROWS) return { shown: items, more: null };
  return { shown: items.slice(0, MAX_ROWS), more: `… and ${items.length - MAX_ROWS} more` };
}

function fill(section: HTMLElement, nodes: ReadonlyArray<Node | null>): void {
  section.replaceChildren(...nodes.filter((n): n is Node => n !== null));
}

/** Why the panel's last read failed (what it shows is then what it knew before), or nothing. */
function failed(error: string | null): HTMLElement | null {
  return error === null ? null : el("p", `cannot read this: ${error}; showing what was known before`, "panel-error");
}

export function renderQueue(section: HTMLElement, entries: Iterable<Entry>, error: string | null = null): void {
  const queue = [...entries].filter((e) => isUnfinished(e) && !e.deleted).sort((a, b) => Number(a.index) - Number(b.index));
  const { shown, more } = capped(queue);
  const rows = shown.map((e) => ({
    key: e.index,
    cells: [
      e.index,
      e.address,
      e.nodename,
      `${e.operation} (${e.machineType})`,
      e.status,
      e.status === "PROCESSING" ? `step ${e.step + 1}${e.stepCount === null ? "" : ` of ${e.stepCount}`}: ${e.stepStatus}` : "",
      e.waitingFor ? `${e.waitingFor.kind}: ${e.waitingFor.message}` : "",
    ],
  }));
  fill(section, [
    el("h2", `Queue (${queue.length})`),
    failed(error),
    table(["#", "address", "node", "operation", "status", "step", "waiting for"], rows, "The queue is empty."),
    more === null ? null : el("p", more, "more"),
  ]);
}

export function renderHolds(section: HTMLElement, holds: Iterable<Hold>, error: string | null = null): void {
  const list = [...holds].sort((a, b) => a.address.localeCompare(b.address));
  const { shown, more } = capped(list);
  const rows = shown.map((h) => ({
    key: h.address,
    cells: [h.address, h.reason, h.setBy, h.source, h.until === null ? "until released" : { text: `until ${clock(h.until)}`, title: h.until }],
  }));
  fill(section, [
    el("h2", `Holds (${list.length})`),
    failed(error),
    table(["address", "reason", "set by", "source", "until"], rows, "No machine is held."),
    more === null ? null : el("p", more, "more"),
  ]);
}

/** How many a poll skipped: "1,000 skipped (20 listed)" when its answer lists a sample. */
function skippedLine(total: number, listed: number): string {
  const n = (count: number) => count.toLocaleString("en-US");
  return total > listed ? `${n(total)} skipped (${n(listed)} listed)` : `${n(total)} skipped`;
}

/**
 * Each poll: what it saw and did, and its skips counted by reason with the change since the poll before; the newest
 * poll lists a sample of its skipped machines (kintsugi sends a few, fair to every reason and rack).
 */
export function renderOutcomes(section: HTMLElement, outcomes: readonly Outcome[], error: string | null = null): void {
  const nodes: Array<Node | null> = [el("h2", "Latest polls"), failed(error)];
  if (outcomes.length === 0) nodes.push(el("p", "No poll has run yet.", "empty"));
  for (const [i, o] of outcomes.entries()) {
    // Only the newest poll lists its sample.
    const listed = i === 0 ? o.skipped.length : o.skippedTotal;
    const parts = [
      `#${o.sequence} at ${clock(o.time)} (${o.trigger}): ${o.machinesSeen} machines seen, ${o.enqueued.length} enqueued, ${skippedLine(o.skippedTotal, listed)}`,
    ];
    if (o.shortCircuit)
      parts.push(
        `short-circuited: ${o.shortCircuit.candidates} candidates over the limit of ${o.shortCircuit.limit} (${o.shortCircuit.existingEntries} in the queue)`,
      );
    if (o.error) parts.push(`error: ${o.error}`);
    const block = el("div", undefined, "outcome");
    const line = el("p", parts.join("; "));
    line.title = visible(o.time);
    block.append(line);
    const changes = kindChanges(outcomes, i);
    if (changes.kinds.length > 0)
      block.append(el("p", `by reason${changes.since === null ? "" : ` (change since #${changes.since})`}: ${kindsLine(changes)}`, "more"));
    if (i === 0 && o.skipped.length > 0) {
      const cells = o.skipped.map((s) => ({ key: s.serial, cells: [s.serial, s.address ?? "", s.state, s.kind + (s.held ? " (held)" : ""), s.reason] }));
      block.append(table(["serial", "address", "state", "skip", "reason"], cells, ""));
      if (o.skippedTotal > o.skipped.length)
        block.append(el("p", `… and ${(o.skippedTotal - o.skipped.length).toLocaleString("en-US")} more (kintsugi auto-repair outcomes lists them)`, "more"));
    }
    nodes.push(block);
  }
  fill(section, nodes);
}

/**
 * A strip of the last hours (up to 24, see stripHours) with a mark per repair that ended (finished or dequeued unfinished), and the list under it.
 * `recent` is newest first; `truncated` says kintsugi sent only the newest of the day's records.
 */
export function renderTimeline(section: HTMLElement, recent: readonly EndedRepair[], truncated: boolean, now: number, error: string | null = null): void {
  const hours = stripHours(recent, now);
  const span = hours * 3_600_000;
  const strip = el("div", undefined, "timeline");
  for (const r of recent.slice(0, MAX_ROWS * 5)) {
    const mark = el("span", undefined, `mark ${MARK_CLASSES[r.status] ?? "dequeued"}`);
    const age = now - Date.parse(r.finishedAt);
    mark.style.left = `${Math.max(0, Math.min(100, 100 - (age / span) * 100))}%`;
    mark.title = visible(`#${r.index} ${r.address} ${r.operation}: ${r.status} at ${clock(r.finishedAt)} (${r.finishedAt})${r.reason ? `: ${r.reason}` : ""}`);
    mark.dataset.key = r.index;
    strip.append(mark);
  }
  const axis = el("div", undefined, "axis");
  axis.append(el("span", `${hours} h ago`), el("span", "now"));
  const { shown, more } = capped(recent);
  const rows = shown.map((r) => ({ key: r.index, cells: [timeCell(r.finishedAt), r.index, r.address, r.operation, r.status, r.reason ?? ""] }));
  // The list scrolls in its own box: 200 rows would push the holds and polls below the fold at 1024 px.
  const list = el("div", undefined, "scroll");
  list.append(table(["ended", "#", "address", "operation", "result", "why it failed"], rows, "No repair ended in the last day."));
  if (more !== null) list.append(el("p", more, "more"));
  fill(section, [el("h2", `Last day's repairs (${truncated ? "at least " : ""}${recent.length})`), failed(error), strip, axis, list]);
}
