// kintsugi's live status page (served at /status): a query per panel over HTTP, then the subscriptions keep it
// current. Every (re)connection reads the panels again once kintsugi says the subscriptions listen, so nothing
// missed while the socket was down, or while they were being started, stays missing; events that arrive while the
// reads are on their way are applied after them. A panel whose read fails says why and
// keeps what it knew; sabakan's or Kubernetes' absence is one banner with since when (kintsugi's `dependencies`).
// While the socket is down the page says since when and dims what it shows (it may be stale); once live again it
// says when it was last disconnected.
import { legend } from "./legend.js";
import { whenListening } from "../../src/graphql/when-listening.js";
import { liveClient, query, RequestError, subscribe } from "./connection.js";
import { clock, visible } from "./dom.js";
import { StatusModel, type Dependency, type Entry, type Hold, type Outcome, type RepairWait } from "./model.js";
import { renderNow } from "./now.js";
import { renderOutage } from "./outage.js";
import { renderHolds, renderOutcomes, renderQueue, renderTimeline } from "./panels.js";
import { FINISHED_LIMIT, READS, SUBSCRIPTIONS } from "./queries.js";
import { rackReads } from "./rack-reads.js";
import { columnsOfCounts, columnsOfMachines } from "./rack-columns.js";
import { rackGrid } from "./racks.js";
import { RepairTimeline, type FinishedRepairRecord } from "./timeline.js";

/** The panels that read their own data, each with its own error. */
type Panel = "machines" | "entries" | "holds" | "outcomes" | "finished";

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
const TOKEN_HINT = " (a viewer token can be set in GraphiQL at /)";
/** `maximum-unhealthy-machines-per-rack`, drawn on the racks' headers; null until read (or when it cannot be). */
let rackLimit: number | null = null;
/** Why each panel's latest read failed; absent when it worked. */
const failures = new Map<Panel, string>();
let pending: Array<() => void> | null = null;
let scheduled = false;

function setBanner(text: string, state: "live" | "connecting" | "error"): void {
  banner.textContent = visible(text);
  banner.dataset.state = state;
}

function render(): void {
  scheduled = false;
  const columns = model.counts ? columnsOfCounts(model.counts) : columnsOfMachines(model.machines, model.entryByAddress(), model.holds);
  const known = model.counts ? model.counts.machines : model.machines.size;
  grid.draw(columns, known, rackLimit);
  const racksError = byId("racks-error");
  const machinesFailed = failures.get("machines") ?? null;
  racksError.hidden = machinesFailed === null;
  racksError.textContent =
    machinesFailed === null ? "" : visible(`cannot read the machines from sabakan: ${machinesFailed}${known > 0 ? "; showing their last known states" : ""}`);
  if (machinesFailed !== null && known === 0) byId("racks-summary").textContent = "no machine known yet (sabakan cannot be read)";
  renderOutage(byId("outage"), model.dependencies.values());
  renderNow(byId("now"), model.entries.values(), model.holds.values());
  renderQueue(byId("queue"), model.entries.values(), failures.get("entries") ?? null);
  renderHolds(byId("holds"), model.holds.values(), failures.get("holds") ?? null);
  renderOutcomes(byId("outcomes"), model.outcomes, failures.get("outcomes") ?? null);
  const now = Date.now();
  renderTimeline(byId("timeline"), timeline.lastDay(now), timeline.truncated, now, failures.get("finished") ?? null);
  document.body.dataset.rendered = String(Number(document.body.dataset.rendered ?? "0") + 1);
}

/** Many events in one frame draw once. */
function changed(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(render);
}

/** Applies an event now, or after the reads in flight. */
function apply(change: () => void): void {
  if (pending) pending.push(change);
  else {
    change();
    changed();
  }
}

/** Reads one panel's data; its failure is noted for that panel alone and returned. */
async function readPanel<T>(panel: Panel, document: string, use: (data: T) => void, variables: Record<string, unknown> = {}): Promise<RequestError | null> {
  try {
    use(await query<T>(document, variables));
    failures.delete(panel);
    return null;
  } catch (err) {
    const failure = err instanceof RequestError ? err : new RequestError(`kintsugi cannot be reached: ${String(err)}`);
    failures.set(panel, failure.message);
    return failure;
  }
}

const { readRacks, recount } = rackReads(
  model,
  (document, use) => readPanel("machines", document, use),
  () => changed(),
);

async function readDependencies(): Promise<void> {
  try {
    const data = await query<{ dependencies: Dependency[] }>(READS.dependencies);
    model.dependencies = new Map();
    for (const d of data.dependencies) model.dependency(d);
  } catch {
    // The banner keeps what it knew; the panels say what cannot be read.
  }
}

/** Reads every panel (at load and at each reconnection), then what kintsugi knows of sabakan and Kubernetes. */
async function readAll(): Promise<void> {
  pending = [];
  try {
    let entries: Entry[] | null = null;
    let records: FinishedRepairRecord[] | null = null;
    const results = await Promise.all([
      readRacks(),
      readPanel<{ searchRepairEntries: Entry[] }>("entries", READS.entries, (d) => {
        entries = d.searchRepairEntries;
        model.replace({ entries });
      }),
      readPanel<{ machineHolds: Hold[] }>("holds", READS.holds, (d) => model.replace({ holds: d.machineHolds })),
      readPanel<{ autoRepairOutcomes: Outcome[] }>("outcomes", READS.outcomes, (d) => model.replace({ outcomes: d.autoRepairOutcomes })),
      readPanel<{ finishedRepairs: FinishedRepairRecord[] }>("finished", READS.finished, (d) => (records = d.finishedRepairs), {
        since: new Date(Date.now() - DAY_MS).toISOString(),
        limit: FINISHED_LIMIT,
      }),
    ]);
    if (records !== null) timeline.replace(records, entries ?? [...model.entries.values()], FINISHED_LIMIT);
    applyPending();
    // Read after the panels: a failure the machines read just met is then in kintsugi's answer.
    await readDependencies();
    // Read at each reconnection: a change of the limit shows then (no event announces it).
    rackLimit = await query<{ constraints: { maximumUnhealthyMachinesPerRack: number } }>(READS.limits).then(
      (d) => d.constraints.maximumUnhealthyMachinesPerRack,
      () => rackLimit,
    );
    const own = results.slice(1);
    const refused = own.find((r) => r?.auth);
    if (own.every((r) => r !== null)) {
      // Nothing of kintsugi's own could be read: kintsugi itself (or access to it) is the problem, not a panel.
      setBanner(`cannot read kintsugi: ${own[0]!.message}${refused ? TOKEN_HINT : ""}`, "error");
      return;
    }
    setBanner("live", "live");
    if (disconnectedSince !== null) {
      note.textContent = `(was disconnected ${clock(new Date(disconnectedSince).toISOString())}–${clock(new Date().toISOString())})`;
      disconnectedSince = null;
    }
    delete document.body.dataset.stale;
  } finally {
    applyPending();
    changed();
  }
}

/** Applies the events that came while the panels were read, and applies the next ones as they come. */
function applyPending(): void {
  const queued = pending ?? [];
  pending = null;
  for (const change of queued) change();
}

/** A subscription ended (kintsugi refused it, or the socket closed for good): start afresh after a pause. */
let restartTimer: ReturnType<typeof setTimeout> | null = null;
const RESTART_MS = 5_000;

function goLive(): void {
  // The snapshot is read once the subscriptions listen: an event published between a read and its subscription
  // taking effect would be lost for good.
  let asking: (() => void) | null = null;
  const client = liveClient({
    onConnected: () => {
      asking?.();
      asking = whenListening(client, () => {
        asking = null;
        void readAll();
      });
    },
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
  const ended = (what: string) => (failure: RequestError) => {
    if (banner.dataset.state !== "error") setBanner(`${what}: ${failure.message}; retrying${failure.auth ? TOKEN_HINT : ""}`, "error");
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
        recount();
      }),
    ended("repair entries"),
  );
  subscribe<{ machineStateChanged: { serial: string; state: string } }>(
    client,
    SUBSCRIPTIONS.machines,
    (d) =>
      apply(() => {
        model.machineState(d.machineStateChanged.serial, d.machineStateChanged.state);
        recount();
      }),
    ended("machine states"),
  );
  subscribe<{ autoRepairOutcomes: Outcome }>(
    client,
    SUBSCRIPTIONS.outcomes,
    // A poll read sabakan: its machines' states may have changed.
    (d) =>
      apply(() => {
        model.outcome(d.autoRepairOutcomes);
        recount();
      }),
    ended("poll outcomes"),
  );
  subscribe<{ machineHoldEvents: { kind: string; hold: Hold } }>(
    client,
    SUBSCRIPTIONS.holds,
    (d) =>
      apply(() => {
        model.hold(d.machineHoldEvents.kind, d.machineHoldEvents.hold);
        recount();
      }),
    ended("holds"),
  );
  subscribe<{ repairWaits: Array<{ index: string; waitingFor: RepairWait }> }>(
    client,
    SUBSCRIPTIONS.waits,
    (d) => apply(() => model.waits(d.repairWaits)),
    ended("waits"),
  );
  subscribe<{ dependencyEvents: Dependency }>(
    client,
    SUBSCRIPTIONS.dependencies,
    ({ dependencyEvents: status }) => {
      apply(() => model.dependency(status));
      // sabakan is back: the racks read it again rather than wait for the next reconnection.
      if (status.name === "sabakan" && status.downSince === null) void readRacks().then(changed);
    },
    ended("dependencies"),
  );
}

legend(byId("legend"));
setBanner("connecting…", "connecting");
goLive();
// The timeline's window moves even when nothing happens, and sabakan's states change without kintsugi's events.
setInterval(() => {
  changed();
  if (model.counts !== null) void readRacks().then(changed);
}, 60_000);
window.addEventListener("resize", changed);
