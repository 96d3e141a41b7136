// Building the page's elements: every value from the server goes in as text, never as markup, and with its control
// characters escaped (a right-to-left override in a serial from sabakan would show the rest of the line reversed).
import { escapeControlCharacters } from "../../src/domain/shared/untrusted-text.js";

/** Text from the server as the page shows it: control and bidirectional characters as visible escapes. */
export const visible = escapeControlCharacters;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = visible(text);
  if (className !== undefined) node.className = className;
  return node;
}

/** A cell's text, or its text with a tooltip (a time's full ISO form). */
export type Cell = string | { readonly text: string; readonly title: string };

/** A time as a table cell: HH:MM:SS, the full ISO time in its tooltip. */
export const timeCell = (time: string): Cell => ({ text: clock(time), title: time });

/** A table with a header row and one row per item (each cell text); an empty list shows `empty` instead. */
export function table(headers: readonly string[], rows: ReadonlyArray<{ readonly key: string; readonly cells: readonly Cell[] }>, empty: string): HTMLElement {
  if (rows.length === 0) return el("p", empty, "empty");
  const t = el("table");
  const head = el("tr");
  for (const h of headers) head.append(el("th", h));
  t.append(el("thead"));
  t.tHead!.append(head);
  const body = el("tbody");
  for (const row of rows) {
    const tr = el("tr");
    tr.dataset.key = row.key;
    for (const cell of row.cells) {
      const td = el("td", typeof cell === "string" ? cell : cell.text);
      if (typeof cell !== "string") td.title = visible(cell.title);
      tr.append(td);
    }
    body.append(tr);
  }
  t.append(body);
  return t;
}

/** A <time> showing `time` as clock() does, with the full ISO time in its tooltip (and its datetime attribute). */
export function timeOf(time: string | null): HTMLElement {
  const node = el("time", clock(time));
  if (time !== null) {
    node.dateTime = time;
    node.title = visible(time);
  }
  return node;
}

/** "12:34:56" in the browser's time zone, or "" for none. */
export function clock(time: string | null): string {
  if (time === null) return "";
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? time : date.toLocaleTimeString([], { hour12: false });
}
