import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NOW } from "../support/fixtures.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { recordRepairsIn } from "../support/recorded-repairs.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { tempDir } from "../support/temp-dir.js";

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe("kintsugi stats, stats machine and stats frequent (in-process against a started server)", () => {
  let k: TestKintsugi;
  let sabakan: FakeSabakan;
  const dir = tempDir();
  const cli = (...args: string[]) => runCliInProcess(["--server", k.url, ...args]);
  const RANGE = ["--since", iso(NOW - 24 * HOUR), "--until", iso(NOW)];

  before(async () => {
    sabakan = await startFakeSabakan({ now: () => NOW });
    sabakan.addMachine({ serial: "s-1", rack: 1, indexInRack: 1 });
    const databasePath = join(dir.path, "k.db");
    await recordRepairsIn(databasePath, [
      { address: "10.1.0.1", createdAt: NOW - 20 * HOUR, drainMin: 2, watchMin: 8, status: "succeeded" },
      { address: "10.1.0.1", createdAt: NOW - 5 * HOUR, drainMin: 10, watchMin: 50, status: "failed" },
      { address: "10.9.9.9", machineType: "dell\x1b[31m", createdAt: NOW - 4 * HOUR, drainMin: 0, watchMin: 90, status: "succeeded" },
    ]);
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

  it("prints a readable table grouped as asked, hostile machine types escaped", async () => {
    const res = await cli("stats", ...RANGE, "--group-by", "machine_type,rack");
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(
      res.stdout
        .trimEnd()
        .split("\n")
        .map((l) => l.split(/\s{2,}/)),
      [
        ["MACHINE TYPE", "RACK", "ENTRIES", "SUCCEEDED", "FAILED", "DELETED", "SUCCESS", "TTR P50", "TTR P90", "TTR MAX", "DRAINING", "STEPS P50", "STEPS MAX"],
        ["qemu", "1", "2", "1", "1", "0", "50.0%", "10m", "1h", "1h", "12m", "1", "1"],
        ["dell\\x1b[31m", "unknown", "1", "1", "0", "0", "100.0%", "1h30m", "1h30m", "1h30m", "0s", "1", "1"],
      ],
    );
  });

  it("prints JSON for scripts", async () => {
    const res = await cli("stats", ...RANGE, "--json");
    assert.equal(res.code, 0, res.stderr);
    const [all] = JSON.parse(res.stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(
      [all?.["entries"], all?.["succeeded"], all?.["failed"], all?.["drainingSeconds"], all?.["timeToRepair"]],
      [3, 2, 1, 12 * 60, { p50Seconds: 3600, p90Seconds: 5400, maxSeconds: 5400 }],
    );
  });

  it("stats machine by serial and by address: the repairs and the time between failures", async () => {
    const bySerial = await cli("stats", "machine", "s-1");
    assert.equal(bySerial.code, 0, bySerial.stderr);
    const lines = bySerial.stdout.trimEnd().split("\n");
    assert.match(lines[0] ?? "", /^INDEX\s+ADDRESS\s+MACHINE TYPE\s+OPERATION\s+STATUS\s+CREATED\s+FINISHED\s+SINCE PREVIOUS$/);
    assert.match(lines[2] ?? "", /^2\s+10\.1\.0\.1\s+qemu\s+unreachable\s+failed\s+\S+Z\s+\S+Z\s+14h50m$/);
    assert.equal(lines[3], "mean time between failures: 14h50m");
    const json = JSON.parse((await cli("stats", "machine", "10.1.0.1", "--json")).stdout) as { repairs: unknown[] };
    assert.equal(json.repairs.length, 2);
  });

  it("stats frequent: the machines repaired most", async () => {
    const res = await cli("stats", "frequent", "--since", iso(NOW - 24 * HOUR), "--top", "1");
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^ADDRESS\s+MACHINE TYPE\s+REPAIRS\s+SUCCEEDED\s+FAILED\s+LAST FINISHED\n10\.1\.0\.1\s+qemu\s+2\s+1\s+1\s+\S+Z\n$/);
  });

  const refused: Array<[string, string[], RegExp]> = [
    ["an unknown group", ["stats", "--group-by", "rack,colour"], /unknown group "colour": one or more of machine_type, operation, rack, step/],
    ["a --since that is no time", ["stats", "--since", "last week"], /invalid time "last week"/],
    ["a --top over 100", ["stats", "frequent", "--top", "101"], /a whole number from 1 to 100, got "101"/],
    ["a range over 90 days (the server's bound)", ["stats", "--since", iso(NOW - 95 * 24 * HOUR), "--until", iso(NOW)], /at most 90 days/],
  ];
  for (const [name, args, message] of refused) {
    it(`refuses ${name}`, async () => {
      const res = await cli(...args);
      assert.notEqual(res.code, 0);
      assert.match(res.stderr, message);
    });
  }
});
