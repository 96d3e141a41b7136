// The legend above the rack grid.
import { REPAIR_COLOURS, REPAIR_LABELS, STATE_COLOURS } from "./colours.js";
import { el } from "./dom.js";

/** Fills the legend: a swatch per state, a ring per repair status and for a hold. */
export function legend(list: HTMLElement): void {
  for (const [state, colour] of Object.entries(STATE_COLOURS)) {
    const swatch = el("span", undefined, "swatch");
    swatch.style.background = colour;
    list.append(el("li"));
    list.lastElementChild!.append(swatch, state.toLowerCase());
  }
  for (const [status, colour] of Object.entries(REPAIR_COLOURS)) {
    const ring = el("span", undefined, "swatch ring");
    ring.style.borderColor = colour;
    list.append(el("li"));
    list.lastElementChild!.append(ring, REPAIR_LABELS[status] ?? status);
  }
}
