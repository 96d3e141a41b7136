import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { join } from "node:path";
import { SabakanClient } from "../../src/adapters/sabakan-client.js";
import type { AutoRepairOutcome } from "../../src/domain/intake/auto-repair-outcome.js";
import { replayAutoRepair, type MachineFate } from "../../src/domain/replay/auto-repair-replay.js";
import type { Constraints } from "../../src/domain/shared/constraints.js";
import { AutoRepairPoller } from "../../src/runner/auto-repair-poller.js";
import { SILENT_LOG } from "../../src/support/log.js";
import { openSqliteStore } from "../../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../../src/store/store-port.js";
import { startFakeSabakan, type FakeSabakan, type MachineState } from "../support/fake-sabakan.js";
import { tempDir } from "../support/temp-dir.js";
import { readPollRecords } from "../support/replay-records.js";

const START = Date.UTC(2026, 10, 23, 6, 0, 0);
const MINUTE = 60_000;
const log = SILENT_LOG;

/** The storm, poll by poll: the machines whose state changes before the poll (HEALTHY = recovered). */
const STORM: ReadonlyArray<ReadonlyArray<readonly [serial: string, state: MachineState]>> = [
  [
    ["r1-1", "UNHEALTHY"],
    ["r1-2", "UNHEALTHY"],
    ["r1-3", "UNHEALTHY"],
    ["r2-1", "UNREACHABLE"],
  ],
  [["r3-1", "UNHEALTHY"]],
  [
    ["r1-1", "HEALTHY"],
    ["r1-2", "HEALTHY"],
    ["r3-2", "UNHEALTHY"],
  ],
  [
    ["r1-3", "HEALTHY"],
    ["r4-1", "UNHEALTHY"],
    ["r4-2", "UNREACHABLE"],
  ],
  [],
  [
    ["r2-1", "HEALTHY"],
    ["r3-1", "HEALTHY"],
    ["r3-2", "HEALTHY"],
  ],
  [["r4-3", "UNHEALTHY"]],
  [],
];
const RACKS: Record<number, number> = { 1: 3, 2: 1, 3: 2, 4: 3 };

const RECORDED: Partial<Constraints> = { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 };
const OTHER = { maximumRepairQueueEntries: 3, waitSecondsToRepairRebooting: 150, maximumUnhealthyMachinesPerRack: 2 };

/**
 * One live run of the storm through the real poller, the real sabakan client and a real SQLite store: each poll
 * follows the script; an entry leaves the queue when its machine recovers (as a finished repair would), the
 * replay's model of a repair's end.
 */
async function liveRun(
  sabakan: FakeSabakan,
  clock: { now: number },
  dir: string,
  name: string,
  constraints: Partial<Constraints>,
): Promise<{ store: KintsugiStore; outcomes: AutoRepairOutcome[] }> {
  for (const m of sabakan.machines()) sabakan.setState(m.serial, "HEALTHY", START - 60 * MINUTE);
  const store = await openSqliteStore({ path: join(dir, `${name}.db`), initialConstraints: constraints });
  await store.settings.setAutoRepairEnabled(true);
  const machines = new SabakanClient({ url: sabakan.url, timeoutMs: 10_000, maxResponseBytes: 1 << 20, now: () => clock.now });
  const poller = new AutoRepairPoller({ store, machines, nodes: null, now: () => clock.now, log });
  const outcomes: AutoRepairOutcome[] = [];
  for (const [i, changes] of STORM.entries()) {
    clock.now = START + i * MINUTE;
    for (const [serial, state] of changes) sabakan.setState(serial, state, clock.now - 60_000);
    for (const e of store.entries.list()) {
      const m = sabakan.machines().find((x) => x.ipv4[0] === e.address);
      if (m?.state === "HEALTHY") await store.entries.dequeue(e.index, () => "recovered", clock.now, "test");
    }
    outcomes.push(await poller.runNow());
  }
  await poller.stop();
  return { store, outcomes };
}

const fatesOf = (o: AutoRepairOutcome): Map<string, MachineFate> =>
  new Map<string, MachineFate>([...o.skipped.map((s) => [s.serial, s.kind] as const), ...o.enqueued.map((e) => [e.serial ?? "", "enqueued"] as const)]);

describe("what-if replay against a second live run (test sabakan, real poller, real SQLite)", () => {
  let sabakan: FakeSabakan;
  const dir = tempDir();
  const clock = { now: START };
  let recorded: Awaited<ReturnType<typeof liveRun>>;
  let other: Awaited<ReturnType<typeof liveRun>>;

  before(async () => {
    sabakan = await startFakeSabakan({ now: () => clock.now });
    for (const [rack, count] of Object.entries(RACKS))
      for (let i = 1; i <= count; i++) sabakan.addMachine({ serial: `r${rack}-${i}`, rack: Number(rack), state: "HEALTHY" });
    recorded = await liveRun(sabakan, clock, dir.path, "recorded", RECORDED);
    other = await liveRun(sabakan, clock, dir.path, "other", OTHER);
  });
  after(async () => {
    await recorded?.store.close();
    await other?.store.close();
    await sabakan.close();
    dir.remove();
  });

  it("records every poll in the poll's own write", async () => {
    const read = await readPollRecords(recorded.store.pollRecords);
    assert.equal(read.unreadable, 0);
    assert.deepEqual(
      read.records.map((r) => r.time),
      recorded.outcomes.map((o) => o.time),
    );
    assert.deepEqual(
      read.records.map((r) => r.enqueued),
      recorded.outcomes.map((o) => o.enqueued.map((e) => e.address)),
    );
  });

  it("replayed with the recorded limits, finds no difference", async () => {
    const report = replayAutoRepair((await readPollRecords(recorded.store.pollRecords)).records, { constraints: {}, repairSeconds: 86_400 });
    assert.deepEqual(report.polls, []);
  });

  it("replayed with other limits, differs poll by poll exactly as the live run with those limits did", async () => {
    const queueBefore = recorded.store.entries.list();
    const report = replayAutoRepair((await readPollRecords(recorded.store.pollRecords)).records, { constraints: OTHER, repairSeconds: 86_400 });
    assert.deepEqual(recorded.store.entries.list(), queueBefore, "the replay never touches the live queue");
    const expected = recorded.outcomes.flatMap((was, i) => {
      const would = other.outcomes[i] as AutoRepairOutcome;
      const wasFates = fatesOf(was);
      const differences = [...fatesOf(would)]
        .filter(([serial, fate]) => wasFates.get(serial) !== fate)
        .map(([serial, fate]) => `${serial}:${wasFates.get(serial)}->${fate}`)
        .sort();
      const short = [was.shortCircuit !== null, would.shortCircuit !== null];
      return differences.length > 0 || short[0] !== short[1] ? [{ time: was.time, simulated: would.enqueued.map((e) => e.address), short, differences }] : [];
    });
    const replayed = report.polls.map((p) => ({
      time: p.time,
      simulated: p.simulated.enqueued,
      short: [p.live.shortCircuited, p.simulated.shortCircuited],
      differences: p.differences.map((d) => `${d.serial}:${d.live}->${d.simulated}`),
    }));
    assert.ok(expected.length >= 3, `the storm makes a difference in several polls (${expected.length})`);
    assert.deepEqual(replayed, expected);
    assert.equal(
      report.enqueuedSimulated,
      other.outcomes.reduce((n, o) => n + o.enqueued.length, 0),
    );
  });
});
