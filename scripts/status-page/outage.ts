// The one banner that says which service kintsugi depends on is away, since when (kintsugi's own first failed call
// to it) and what that means for what the page shows: kintsugi's own data (queue, holds, polls, repairs) stays
// current; only what comes from that service is missing or old.
import { timeOf, el } from "./dom.js";
import type { Dependency } from "./model.js";

const LABELS: Readonly<Record<string, string>> = { sabakan: "sabakan", kubernetes: "Kubernetes" };

const CONSEQUENCES: Readonly<Record<string, string>> = {
  sabakan: "machine states and racks cannot be read and no repair is enqueued from sabakan",
  kubernetes: "repairs wait: nodes cannot be listed, cordoned or drained",
};

/** Fills `banner` with a line per dependency that is down, and hides it when none is. */
export function renderOutage(banner: HTMLElement, dependencies: Iterable<Dependency>): void {
  const down = [...dependencies].filter((d) => d.downSince !== null);
  banner.hidden = down.length === 0;
  banner.dataset.down = down.map((d) => d.name).join(" ");
  const lines = down.map((d) => {
    const line = el("p");
    line.dataset.dependency = d.name;
    const calls = `${d.failures} failed call${d.failures === 1 ? "" : "s"}`;
    line.append(
      el("strong", `${LABELS[d.name] ?? d.name} is unreachable since `),
      timeOf(d.downSince),
      el("span", ` (${calls}): ${CONSEQUENCES[d.name] ?? "what it provides is missing"}.`),
    );
    if (d.error) line.append(el("span", ` Last error: ${d.error}`, "detail"));
    return line;
  });
  if (down.length > 0) lines.push(el("p", "The queue, holds, polls and repairs below are kintsugi's own and stay current.", "detail"));
  banner.replaceChildren(...lines);
}
