// kintsugi's live status page (served at /status): one snapshot over HTTP, then the subscriptions keep it current.
// Every reconnection reads the snapshot again, so nothing missed while the socket was down stays missing; events
// that arrive while a snapshot is on its way are applied after it.
import { REPAIR_COLOURS, REPAIR_LABELS, STATE_COLOURS } from "./colours.js";
import { liveClient, query, RequestError, subscribe } from "./connection.js";
import { el } from "./dom.js";
import { StatusModel, type Entry, type Hold, type Machine, type Outcome, type RepairWait } from "./model.js";
import { renderHolds, renderOutcomes, renderQueue, renderTimeline } from "./panels.js";
import { SNAPSHOT, SUBSCRIPTIONS } from "./queries.js";
import { rackGrid } from "./racks.js";

interface Snapshot {
  searchMachines: Array<{ spec: { serial: string; rack: number; indexInRack: number; ipv4: string[] }; status: { state: string } }>;
  searchRepairEntries: Entry[];
  machineHolds: Hold[];
  autoRepairOutcomes: Outcome[];
}

const byId = (id: string): HTMLElement => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
};

const model = new StatusModel();
const banner = byId("connection");
const grid = rackGrid(byId("racks") as HTMLCanvasElement, byId("racks-summary"), byId("racks-tooltip"));
const TOKEN_HINT = "(a viewer token can be set in GraphiQL at /)";
let pending: Array<() => void> | null = null;
let scheduled = false;

function setBanner(text: string, state: "live" | "connecting" | "error"): void {
  banner.textContent = text;
  banner.dataset.state = state;
}

function render(): void {
  scheduled = false;
  const entries = model.entryByAddress();
  grid.draw(model.machines, entries, model.holds);
  renderQueue(byId("queue"), model.entries.values());
  renderHolds(byId("holds"), model.holds.values());
  renderOutcomes(byId("outcomes"), model.outcomes);
  renderTimeline(byId("timeline"), model.entries.values(), Date.now());
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
    const data = await query<Snapshot>(SNAPSHOT);
    const machines: Machine[] = data.searchMachines.map((m) => ({ serial: m.spec.serial, rack: m.spec.rack, indexInRack: m.spec.indexInRack, address: m.spec.ipv4[0] ?? null, state: m.status.state }));
    model.replace({ machines, entries: data.searchRepairEntries, holds: data.machineHolds, outcomes: data.autoRepairOutcomes });
    for (const change of pending) change();
    setBanner("live", "live");
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
      if (banner.dataset.state !== "error") setBanner(`reconnecting (${reason})…`, "connecting");
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
  subscribe<{ repairEntryEvents: { entry: Entry } }>(client, SUBSCRIPTIONS.entries, (d) => apply(() => model.upsertEntry(d.repairEntryEvents.entry)), ended("repair entries"));
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
