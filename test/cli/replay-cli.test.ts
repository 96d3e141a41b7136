import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { runCli } from "../support/run-cli.js";

const MINUTE = 60_000;

describe("simulateAutoRepair and kintsugi replay (the real binary against a started server that polled a storm)", () => {
  let sabakan: FakeSabakan;
  let k: TestKintsugi;
  const cli = (...args: string[]) => runCli(["--server", k.url, ...args]);

  before(async () => {
    sabakan = await startFakeSabakan();
    k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1024 * 1024 }, constraints: { maximumRepairQueueEntries: 10 } },
      { startSchedule: false, startClusterSchedule: false },
    );
    for (const serial of ["r1-1", "r1-2", "r1-3"]) sabakan.addMachine({ serial, rack: 1, state: "UNHEALTHY", stateSince: Date.now() - 10 * MINUTE });
    const polled = await k.gql(`mutation { runAutoRepair { enqueued { address } } }`);
    assert.equal(polled.data?.["runAutoRepair"].enqueued.length, 3, JSON.stringify(polled));
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
  });

  it("prints, poll by poll, what a lower queue limit would have done", async () => {
    const r = await cli("replay", "--since", "1h", "--set", "maximum-repair-queue-entries=2");
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines[0], "replayed 1 polls: 3 entries enqueued, 0 would have been; 1 polls differ");
    assert.match(lines[1] ?? "", /^\S+Z {2}was: enqueued 3, queue 0 {2}would be: enqueued 0 \(short-circuited\), queue 0$/);
    assert.deepEqual(lines.slice(2), ["  r1-1  10.1.0.1  enqueued -> queue_limit", "  r1-2  10.1.0.2  enqueued -> queue_limit", "  r1-3  10.1.0.3  enqueued -> queue_limit"]);
    assert.equal((await k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"].length, 3, "the live queue is untouched");
  });

  it("prints the whole answer as JSON, and no difference with the recorded limits", async () => {
    const json = await cli("replay", "--since", "1h", "--set", "maximum-repair-queue-entries=10", "--set", "maximum-unhealthy-machines-per-rack=2", "--json");
    assert.equal(json.code, 0, json.stderr);
    const answer = JSON.parse(json.stdout) as { pollsReplayed: number; polls: Array<{ differences: Array<{ simulated: string }> }> };
    assert.equal(answer.pollsReplayed, 1);
    assert.deepEqual(answer.polls[0]?.differences.map((d) => d.simulated), ["RACK_LIMIT", "RACK_LIMIT", "RACK_LIMIT"]);
    const same = await cli("replay", "--since", "1h");
    assert.equal(same.stdout, "replayed 1 polls: 3 entries enqueued, 3 would have been; 0 polls differ\n");
  });

  it("replays with another runner: the storm's entries are simulated rather than kept as recorded", async () => {
    const r = await cli("replay", "--since", "1h", "--pacing", "rack", "--max-concurrent-repairs", "2", "--json");
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout) as { pollsReplayed: number; enqueuedLive: number; enqueuedSimulated: number; truncated: boolean };
    assert.deepEqual([answer.pollsReplayed, answer.enqueuedLive, answer.enqueuedSimulated, answer.truncated], [1, 3, 3, false]);
    const none = await cli("replay", "--since", "1h", "--pacing", "none");
    assert.equal(none.stdout, "replayed 1 polls: 3 entries enqueued, 3 would have been; 0 polls differ\n");
  });

  const refused: Array<[string, string[], RegExp]> = [
    ["a constraint the intake does not read", ["--set", "minimum-workers=3"], /--set.*expected NAME=VALUE with NAME one of maximum-repair-queue-entries/],
    ["a value that is not a number", ["--set", "maximum-repair-queue-entries=five"], /expected NAME=VALUE/],
    ["a since that is not a time", ["--since", "last week"], /invalid time "last week"/],
    ["a since too far back", ["--since", "40d"], /since: must be within the last 31 days/],
    ["a repair time under a minute", ["--repair-time", "10s"], /repairSeconds: must be an integer from 60 to 2592000, got 10/],
    ["a pacing domain kintsugi does not know", ["--pacing", "rack,row"], /--pacing.*expected "none" or a comma-separated list of rack, machine_type \(each once\), got "rack,row"/],
    ["a pacing domain listed twice", ["--pacing", "rack,rack"], /--pacing.*each once/],
    ["max-concurrent-repairs of 0", ["--max-concurrent-repairs", "0"], /pacing\.maxConcurrentRepairs: must be an integer from 1 to 10000, got 0/],
    ["max-concurrent-repairs that is not a number", ["--max-concurrent-repairs", "many"], /--max-concurrent-repairs.*expected a whole number, got "many"/],
  ];
  for (const [name, args, message] of refused) {
    it(`refuses ${name}, naming it`, async () => {
      const r = await cli("replay", ...args);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, message);
    });
  }

  it("refuses through GraphQL a since in the future and a constraint out of range, with INVALID_ARGUMENT", async () => {
    const future = await k.gql(`{ simulateAutoRepair(since: "2099-01-01T00:00:00Z") { pollsReplayed } }`);
    assert.equal(future.errors?.[0]?.extensions?.["type"], "INVALID_ARGUMENT");
    assert.match(future.errors?.[0]?.message ?? "", /since: must not be in the future/);
    const big = await k.gql(`{ simulateAutoRepair(since: "${new Date(Date.now() - MINUTE).toISOString()}", constraints: { maximumRepairQueueEntries: 2000000 }) { pollsReplayed } }`);
    assert.equal(big.errors?.[0]?.extensions?.["type"], "INVALID_ARGUMENT");
    assert.match(big.errors?.[0]?.message ?? "", /constraints\.maximumRepairQueueEntries: must be an integer from 0 to 1000000, got 2000000/);
  });
});
