import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NOW } from "../support/fixtures.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { recordRepairsIn, type RepairToRecord } from "../support/recorded-repairs.js";
import { tempDir } from "../support/temp-dir.js";

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
// Known answers: rack 1 holds 10.1.0.1 (repaired three times: 10 + 20 min succeeded, 60 min failed) and 10.1.0.2
// (30 min, succeeded); 10.9.9.9 is a dell sabakan does not know (40 min, succeeded).
const REPAIRS: RepairToRecord[] = [
  { address: "10.1.0.1", createdAt: NOW - 20 * HOUR, drainMin: 2, watchMin: 8, status: "succeeded" },
  { address: "10.1.0.2", createdAt: NOW - 10 * HOUR, drainMin: 5, watchMin: 25, status: "succeeded" },
  { address: "10.1.0.1", createdAt: NOW - 5 * HOUR, drainMin: 10, watchMin: 10, status: "succeeded" },
  { address: "10.9.9.9", machineType: "dell", createdAt: NOW - 4 * HOUR, drainMin: 0, watchMin: 40, status: "succeeded" },
  { address: "10.1.0.1", createdAt: NOW - 2 * HOUR, drainMin: 30, watchMin: 30, status: "failed" },
];

describe("repairStats, machineRepairs, frequentlyRepaired and finishedRepairs over HTTP (real SQLite, the fake sabakan's racks)", () => {
  let k: TestKintsugi;
  let sabakan: FakeSabakan;
  const dir = tempDir();

  before(async () => {
    sabakan = await startFakeSabakan({ now: () => NOW });
    sabakan.addMachine({ serial: "s-1", rack: 1, indexInRack: 1 });
    sabakan.addMachine({ serial: "s-2", rack: 1, indexInRack: 2 });
    const databasePath = join(dir.path, "k.db");
    await recordRepairsIn(databasePath, REPAIRS);
    k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 2, maxResponseBytes: 1 << 20 } },
      { databasePath, now: () => NOW, startSchedule: false },
    );
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
    dir.remove();
  });

  const STATS = `query($s: DateTime!, $u: DateTime, $g: [RepairStatsDimension!]) { repairStats(since: $s, until: $u, groupBy: $g) {
    machineType rack entries succeeded failed successRate timeToRepair { p50Seconds p90Seconds maxSeconds } drainingSeconds stepsNeededP50 withHistory } }`;

  it("groups by machine type and rack, the unknown machine in rack unknown, with known answers", async () => {
    const res = await k.gql(STATS, { s: iso(NOW - 24 * HOUR), g: ["MACHINE_TYPE", "RACK"] });
    assert.equal(res.errors, undefined, JSON.stringify(res.errors));
    assert.deepEqual(res.data?.["repairStats"], [
      {
        machineType: "qemu",
        rack: "1",
        entries: 4,
        succeeded: 3,
        failed: 1,
        successRate: 0.75,
        timeToRepair: { p50Seconds: 20 * 60, p90Seconds: 60 * 60, maxSeconds: 60 * 60 },
        drainingSeconds: (2 + 5 + 10 + 30) * 60,
        stepsNeededP50: 1,
        withHistory: 4,
      },
      {
        machineType: "dell",
        rack: "unknown",
        entries: 1,
        succeeded: 1,
        failed: 0,
        successRate: 1,
        timeToRepair: { p50Seconds: 40 * 60, p90Seconds: 40 * 60, maxSeconds: 40 * 60 },
        drainingSeconds: 0,
        stepsNeededP50: 1,
        withHistory: 1,
      },
    ]);
  });

  it("until is exclusive and narrows the range", async () => {
    // The third repair finished at NOW - 4h40m exactly: left out.
    const res = await k.gql(STATS, { s: iso(NOW - 24 * HOUR), u: iso(NOW - 4 * HOUR - 40 * 60_000) });
    assert.deepEqual(
      res.data?.["repairStats"].map((g: Record<string, unknown>) => g["entries"]),
      [2],
    );
  });

  const refusals: Array<{ name: string; query: string; variables: Record<string, unknown>; message: RegExp }> = [
    { name: "a range over 90 days", query: STATS, variables: { s: iso(NOW - 91 * 24 * HOUR) }, message: /at most 90 days/ },
    { name: "since after until", query: STATS, variables: { s: iso(NOW - HOUR), u: iso(NOW - 2 * HOUR) }, message: /must be before until/ },
    {
      name: "top over 100",
      query: `{ frequentlyRepaired(since: "${iso(NOW - HOUR)}", top: 101) { address } }`,
      variables: {},
      message: /top must be from 1 to 100/,
    },
    {
      name: "both address and serial",
      query: `{ machineRepairs(address: "10.1.0.1", serial: "s-1") { meanSecondsBetweenFailures } }`,
      variables: {},
      message: /exactly one of address and serial/,
    },
    {
      name: "a serial of 10,000 characters: refused before sabakan is asked",
      query: `query($s: String) { machineRepairs(serial: $s) { meanSecondsBetweenFailures } }`,
      variables: { s: "s".repeat(10_000) },
      message: /^serial: 10000 characters, at most 256 allowed$/,
    },
    {
      name: "a serial with a control character",
      query: `query($s: String) { machineRepairs(serial: $s) { meanSecondsBetweenFailures } }`,
      variables: { s: "s-1\n" },
      message: /^serial: must not contain control characters$/,
    },
    {
      name: "a finishedRepairs range over 7 days",
      query: `{ finishedRepairs(since: "${iso(NOW - 7 * 24 * HOUR - 1)}") { index } }`,
      variables: {},
      message: /^the range from since to until may cover at most 7 days$/,
    },
    {
      name: "a finishedRepairs limit of 0",
      query: `{ finishedRepairs(since: "${iso(NOW - HOUR)}", limit: 0) { index } }`,
      variables: {},
      message: /^limit must be from 1 to 5000, got 0$/,
    },
    {
      name: "a finishedRepairs limit over 5,000",
      query: `{ finishedRepairs(since: "${iso(NOW - HOUR)}", limit: 5001) { index } }`,
      variables: {},
      message: /^limit must be from 1 to 5000, got 5001$/,
    },
    {
      name: "a serial sabakan does not know",
      query: `{ machineRepairs(serial: "nope") { meanSecondsBetweenFailures } }`,
      variables: {},
      message: /knows no machine "nope"/,
    },
  ];
  for (const c of refusals) {
    it(`refuses ${c.name} with INVALID_ARGUMENT`, async () => {
      const res = await k.gql(c.query, c.variables);
      assert.equal(res.errors?.[0]?.extensions?.type, "INVALID_ARGUMENT", JSON.stringify(res.errors));
      assert.match(res.errors![0]!.message, c.message);
    });
  }

  it("machineRepairs by serial: every repair of the machine with the time between failures", async () => {
    const res = await k.gql(`{ machineRepairs(serial: "s-1") { repairs { address status secondsSincePrevious } meanSecondsBetweenFailures } }`);
    assert.equal(res.errors, undefined, JSON.stringify(res.errors));
    // Finished at NOW-20h+10m, NOW-5h+20m; created at NOW-5h and NOW-2h: gaps of 14h50m and 2h40m.
    assert.deepEqual(res.data?.["machineRepairs"], {
      repairs: [
        { address: "10.1.0.1", status: "succeeded", secondsSincePrevious: null },
        { address: "10.1.0.1", status: "succeeded", secondsSincePrevious: (14 * 60 + 50) * 60 },
        { address: "10.1.0.1", status: "failed", secondsSincePrevious: (2 * 60 + 40) * 60 },
      ],
      meanSecondsBetweenFailures: ((14 * 60 + 50 + 2 * 60 + 40) / 2) * 60,
    });
  });

  it("frequentlyRepaired: the machines repaired most first", async () => {
    const res = await k.gql(`{ frequentlyRepaired(since: "${iso(NOW - 24 * HOUR)}", top: 2) { address machineType repairs succeeded failed } }`);
    assert.deepEqual(res.data?.["frequentlyRepaired"], [
      { address: "10.1.0.1", machineType: "qemu", repairs: 3, succeeded: 2, failed: 1 },
      { address: "10.9.9.9", machineType: "dell", repairs: 1, succeeded: 1, failed: 0 },
    ]);
  });

  const FINISHED = `query($s: DateTime!, $u: DateTime, $l: Int) { finishedRepairs(since: $s, until: $u, limit: $l) { address machineType operation source status createdAt finishedAt } }`;
  const finished = (createdAt: number, minutes: number, status: string, address = "10.1.0.1", machineType = "qemu") => ({
    address,
    machineType,
    operation: "unreachable",
    source: "sabakan",
    status,
    createdAt: iso(createdAt),
    finishedAt: iso(createdAt + minutes * 60_000),
  });

  it("finishedRepairs: the newest first, at most limit of them, until exclusive", async () => {
    const newest = await k.gql(FINISHED, { s: iso(NOW - 24 * HOUR), l: 3 });
    assert.equal(newest.errors, undefined, JSON.stringify(newest.errors));
    assert.deepEqual(newest.data?.["finishedRepairs"], [
      finished(NOW - 2 * HOUR, 60, "failed"),
      finished(NOW - 4 * HOUR, 40, "succeeded", "10.9.9.9", "dell"),
      finished(NOW - 5 * HOUR, 20, "succeeded"),
    ]);
    // The third repair finished at NOW - 4h40m exactly: left out.
    const older = await k.gql(FINISHED, { s: iso(NOW - 24 * HOUR), u: iso(NOW - 4 * HOUR - 40 * 60_000) });
    assert.deepEqual(older.data?.["finishedRepairs"], [finished(NOW - 10 * HOUR, 30, "succeeded", "10.1.0.2"), finished(NOW - 20 * HOUR, 10, "succeeded")]);
  });

  // Last: it marks every entry for deletion.
  it("finishedRepairs: a repair whose entry was deleted from the queue stays listed", async () => {
    const deleted = await k.gql("mutation { deleteFinishedRepairEntries { index } }");
    assert.equal(deleted.errors, undefined, JSON.stringify(deleted.errors));
    // Without a runner the entries stay, marked for deletion (the browser test sees a runner dequeue one).
    assert.deepEqual(
      (await k.gql("{ searchRepairEntries { deleted } }")).data?.["searchRepairEntries"].map((e: { deleted: boolean }) => e.deleted),
      [true, true, true, true, true],
    );
    const res = await k.gql(FINISHED, { s: iso(NOW - 24 * HOUR) });
    assert.deepEqual(
      res.data?.["finishedRepairs"].map((r: { status: string }) => r.status),
      ["failed", "succeeded", "succeeded", "succeeded", "succeeded"],
    );
  });
});
