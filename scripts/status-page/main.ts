// kintsugi's live status page (served at /status): one snapshot over HTTP, then the subscriptions keep it current.
// Every reconnection reads the snapshot again, so nothing missed while the socket was down stays missing; events
// that arrive while a snapshot is on its way are applied after it. While the socket is down the page says since when
// and dims what it shows (it may be stale); once live again it says when it was last disconnected.
import { REPAIR_COLOURS, REPAIR_LABELS, STATE_COLOURS } from "./colours.js";
import { liveClient, query, RequestError, subscribe } from "./connection.js";
import { clock, el, visible } from "./dom.js";
import { StatusModel, type Entry, type Hold, type Machine, type Outcome, type RepairWait } from "./model.js";
import { renderHolds, renderOutcomes, renderQueue, renderTimeline } from "./panels.js";
import { FINISHED_LIMIT, SNAPSHOT, SUBSCRIPTIONS } from "./queries.js";
import { rackGrid } from "./racks.js";
import { RepairTimeline, type FinishedRepairRecord } from "./timeline.js";

interface Snapshot {
  searchMachines: Array<{ spec: { serial: string; rack: number; indexInRack: number; ipv4: string[] }; status: { state: string } }>;
  searchRepairEntries: Entry[];
  machineHolds: Hold[];
  autoRepairOutcomes: Outcome[];
  finishedRepairs: FinishedRepairRecord[];
}

const byId = (id: string): HTMLElement => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
};

const model = new StatusModel();
const timeline = new RepairTimeline();
const banner = byId("connection");
const note = byId("connection-note");
const DAY_MS = 86_400_000;
/** When the socket went down (ms), while it is down. */
let disconnectedSince: number | null = null;
const grid = rackGrid(byId("racks") as HTMLCanvasElement, byId("racks-summary"), byId("racks-tooltip"));
const TOKEN_HINT = "(a viewer token can be set in GraphiQL at /)";
let pending: Array<() => void> | null = null;
let scheduled = false;

function setBanner(text: string, state: "live" | "connecting" | "error"): void {
  banner.textContent = visible(text);
  banner.dataset.state = state;
}

function render(): void {
  scheduled = false;
  const entries = model.entryByAddress();
  grid.draw(model.machines, entries, model.holds);
  renderQueue(byId("queue"), model.entries.values());
  renderHolds(byId("holds"), model.holds.values());
  renderOutcomes(byId("outcomes"), model.outcomes);
  const now = Date.now();
  renderTimeline(byId("timeline"), timeline.lastDay(now), timeline.truncated, now);
  document.body.dataset.rendered = String(Number(document.body.dataset.rendered ?? "0") + 1);
}

/** Many events in one frame draw once. */
function changed(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(render);
}

/** Applies an event now, or after the snapshot in flight. */
function apply(change: () => void): void {
  if (pending) pending.push(change);
  else {
    change();
    changed();
  }
}

async function readSnapshot(): Promise<void> {
  pending = [];
  try {
    const data = await query<Snapshot>(SNAPSHOT, { since: new Date(Date.now() - DAY_MS).toISOString(), limit: FINISHED_LIMIT });
    const machines: Machine[] = data.searchMachines.map((m) => ({ serial: m.spec.serial, rack: m.spec.rack, indexInRack: m.spec.indexInRack, address: m.spec.ipv4[0] ?? null, state: m.status.state }));
    model.replace({ machines, entries: data.searchRepairEntries, holds: data.machineHolds, outcomes: data.autoRepairOutcomes });
    timeline.replace(data.finishedRepairs, data.searchRepairEntries, FINISHED_LIMIT);
    for (const change of pending) change();
    setBanner("live", "live");
    if (disconnectedSince !== null) {
      note.textContent = `(was disconnected ${clock(new Date(disconnectedSince).toISOString())}–${clock(new Date().toISOString())})`;
      disconnectedSince = null;
    }
    delete document.body.dataset.stale;
  } catch (err) {
    const message = err instanceof RequestError ? err.message : String(err);
    setBanner(`cannot read kintsugi: ${message} ${TOKEN_HINT}`, "error");
  } finally {
    pending = null;
    changed();
  }
}

function legend(): void {
  const list = byId("legend");
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

/** A subscription ended (kintsugi refused it, or the socket closed for good): start afresh after a pause. */
let restartTimer: ReturnType<typeof setTimeout> | null = null;
const RESTART_MS = 5_000;

function goLive(): void {
  const client = liveClient({
    onConnected: () => void readSnapshot(),
    // A refusal the snapshot explained (a missing token, say) stays on the banner while the socket retries.
    onDisconnected: (reason) => {
      // Before the first snapshot nothing is shown yet, so nothing is stale.
      if (document.body.dataset.rendered !== undefined && disconnectedSince === null) {
        disconnectedSince = Date.now();
        document.body.dataset.stale = "true";
      }
      const since = disconnectedSince === null ? "" : `disconnected since ${clock(new Date(disconnectedSince).toISOString())}, what is shown may be stale; `;
      if (banner.dataset.state !== "error") setBanner(`${since}reconnecting (${reason})…`, "connecting");
    },
  });
  const ended = (what: string) => (message: string) => {
    if (banner.dataset.state !== "error") setBanner(`${what}: ${message}; retrying ${TOKEN_HINT}`, "error");
    if (restartTimer !== null) return;
    restartTimer = setTimeout(() => {
      restartTimer = null;
      void client.dispose();
      goLive();
    }, RESTART_MS);
  };
  subscribe<{ repairEntryEvents: { kind: string; entry: Entry; record: { time: string } } }>(
    client,
    SUBSCRIPTIONS.entries,
    ({ repairEntryEvents: event }) =>
      apply(() => {
        model.upsertEntry(event.entry);
        timeline.entryEvent(event.kind, event.entry, event.record.time);
      }),
    ended("repair entries"),
  );
  subscribe<{ machineStateChanged: { serial: string; state: string } }>(client, SUBSCRIPTIONS.machines, (d) => apply(() => model.machineState(d.machineStateChanged.serial, d.machineStateChanged.state)), ended("machine states"));
  subscribe<{ autoRepairOutcomes: Outcome }>(client, SUBSCRIPTIONS.outcomes, (d) => apply(() => model.outcome(d.autoRepairOutcomes)), ended("poll outcomes"));
  subscribe<{ machineHoldEvents: { kind: string; hold: Hold } }>(client, SUBSCRIPTIONS.holds, (d) => apply(() => model.hold(d.machineHoldEvents.kind, d.machineHoldEvents.hold)), ended("holds"));
  subscribe<{ repairWaits: Array<{ index: string; waitingFor: RepairWait }> }>(client, SUBSCRIPTIONS.waits, (d) => apply(() => model.waits(d.repairWaits)), ended("waits"));
}

legend();
setBanner("connecting…", "connecting");
goLive();
// The timeline's window moves even when nothing happens.
setInterval(changed, 60_000);
window.addEventListener("resize", changed);
