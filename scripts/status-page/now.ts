// What is happening now, first on the page: what is being repaired (at which step), what waits and why, and what
// is held. The queue and holds panels below keep the full tables; this is the glance.
import { clock, el } from "./dom.js";
import { isUnfinished, type Entry, type Hold } from "./model.js";

/** Items listed per group; the rest are counted. */
const SHOWN = 8;

function group(title: string, lines: readonly string[], none: string, key: string): HTMLElement {
  const box = el("div");
  box.dataset.group = key;
  box.append(el("span", `${title} (${lines.length})`, "label"));
  if (lines.length === 0) {
    box.append(el("p", none, "empty"));
    return box;
  }
  const list = el("ul");
  for (const line of lines.slice(0, SHOWN)) list.append(el("li", line));
  if (lines.length > SHOWN) list.append(el("li", `… and ${lines.length - SHOWN} more`, "more"));
  box.append(list);
  return box;
}

/** Fills `section` with the three groups: being repaired, waiting (and why), held. */
export function renderNow(section: HTMLElement, entries: Iterable<Entry>, holds: Iterable<Hold>): void {
  const unfinished = [...entries].filter((e) => isUnfinished(e) && !e.deleted).sort((a, b) => Number(a.index) - Number(b.index));
  const node = (e: Entry) => (e.nodename ? ` (${e.nodename})` : "");
  // What a processing entry waits for is part of its progress (watching the health check, a drain back-off).
  const why = (e: Entry) => (e.waitingFor ? `${e.waitingFor.kind}: ${e.waitingFor.message}` : "");
  const repairing = unfinished
    .filter((e) => e.status === "PROCESSING")
    .map(
      (e) =>
        `#${e.index} ${e.address}${node(e)}: ${e.operation}, step ${e.step + 1}${e.stepCount === null ? "" : ` of ${e.stepCount}`} ${e.stepStatus}${e.waitingFor ? ` (${why(e)})` : ""}`,
    );
  const waiting = unfinished.filter((e) => e.status === "QUEUED").map((e) => `#${e.index} ${e.address}${node(e)}: ${why(e) || "queued"}`);
  const held = [...holds]
    .sort((a, b) => a.address.localeCompare(b.address))
    .map((h) => `${h.address}: ${h.reason} (${h.setBy}${h.until === null ? "" : `, until ${clock(h.until)}`})`);
  const groups = el("div", undefined, "groups");
  groups.append(
    group("Being repaired", repairing, "Nothing is being repaired.", "repairing"),
    group("Waiting", waiting, "Nothing waits.", "waiting"),
    group("Held", held, "No machine is held.", "held"),
  );
  section.replaceChildren(el("h2", "Now"), groups);
}
