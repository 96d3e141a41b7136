import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { FinishedRepair } from "../../src/domain/queue/finished-repair.js";
import { createRepairEntry, type RepairEntry } from "../../src/domain/queue/repair-entry.js";
import { repairStats, type RepairStatsDimension } from "../../src/domain/stats/repair-stats.js";
import { RepairSummaries } from "../../src/runner/repair-summaries.js";
import { openSqliteStore } from "../../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore, RepairEntryPort } from "../../src/store/store-port.js";
import { NOW } from "../support/fixtures.js";
import { tempDir } from "../support/temp-dir.js";

const MIN = 60_000;
const WIDE = [NOW, NOW + 600 * MIN] as const;

describe("RepairSummaries (real SQLite)", () => {
  let dir: ReturnType<typeof tempDir>;
  let store: KintsugiStore;
  /** The index ranges the summaries asked the store for, as [first, last, limit]. */
  let reads: Array<[number, number, number]>;
  let entries: Pick<RepairEntryPort, "timelines">;
  beforeEach(async () => {
    dir = tempDir();
    store = await openSqliteStore({ path: join(dir.path, "k.db") });
    reads = [];
    entries = {
      timelines: (first, last, limit) => {
        reads.push([first, last, limit]);
        return store.entries.timelines(first, last, limit);
      },
    };
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  /** Adds an entry, drains it for a minute, and finishes it `finishMin` minutes after NOW. */
  async function repair(address: string, finishMin: number, status: RepairEntry["status"] = "succeeded"): Promise<number> {
    const { entry } = await store.entries.add(
      createRepairEntry({ address, machineType: "qemu", operation: "unhealthy", serial: null, source: "sabakan" }, NOW),
      "test",
      NOW,
      "sabakan",
    );
    const at = (min: number, over: Partial<RepairEntry>, reason: string) =>
      store.entries.change(
        entry.index,
        (e) => e && [{ entry: { ...e, ...over, lastTransitionTime: NOW + min * MIN }, kind: "transition", reason }],
        NOW + min * MIN,
        "kintsugi",
      );
    await at(finishMin - 2, { status: "processing", stepStatus: "draining" }, "drain");
    await at(finishMin - 1, { status: "processing", stepStatus: "watching" }, "watch");
    await at(finishMin, { status }, status);
    return entry.index;
  }

  /** The store's finished port, counting the records asked for their stored summary. */
  function counted(): { readonly port: ConstructorParameters<typeof RepairSummaries>[1]; looked: number } {
    const counter = {
      looked: 0,
      port: {
        kept: () => store.finished.kept(),
        summaryOf: (sequence: number) => {
          counter.looked++;
          return store.finished.summaryOf(sequence);
        },
      },
    };
    return counter;
  }

  const brief = (read: Awaited<ReturnType<RepairSummaries["read"]>>) => read.map((r) => [r.repair.address, r.summary?.drainingMs ?? null]);

  it("the repairs finished in [since, until), each with its history's summary", async () => {
    await repair("10.0.0.1", 10);
    await repair("10.0.0.2", 20, "failed");
    await repair("10.0.0.3", 30);
    const read = await new RepairSummaries(entries, store.finished).read(NOW + 20 * MIN, NOW + 30 * MIN);
    assert.deepEqual(
      read.map((r) => [r.repair.address, r.repair.status, r.summary]),
      [["10.0.0.2", "failed", { drainingMs: MIN, stepsNeeded: 1, finalStep: 0 }]],
      "since is inclusive, until exclusive",
    );
    assert.deepEqual(reads, [[2, 2, 100_000]], "only the index range of the repairs in the range is read");
  });

  it("a kept summary is not read again; a repair that ended since is read alone", async () => {
    await repair("10.0.0.1", 10);
    await repair("10.0.0.2", 20);
    const summaries = new RepairSummaries(entries, store.finished);
    await summaries.read(...WIDE);
    await summaries.read(...WIDE);
    await repair("10.0.0.3", 30);
    assert.deepEqual(brief(await summaries.read(...WIDE)), [
      ["10.0.0.3", MIN],
      ["10.0.0.2", MIN],
      ["10.0.0.1", MIN],
    ]);
    assert.deepEqual(reads, [
      [1, 2, 100_000],
      [3, 3, 100_000],
    ]);
  });

  it("queries that come together read the histories once: each waits for the read before it", async () => {
    await repair("10.0.0.1", 10);
    await repair("10.0.0.2", 20);
    const summaries = new RepairSummaries(entries, store.finished);
    const answers = await Promise.all([summaries.read(...WIDE), summaries.read(...WIDE), summaries.read(...WIDE), summaries.read(...WIDE)]);
    for (const answer of answers)
      assert.deepEqual(brief(answer), [
        ["10.0.0.2", MIN],
        ["10.0.0.1", MIN],
      ]);
    assert.deepEqual(reads, [[1, 2, 100_000]]);
  });

  it("statistics asked again, by many at once, are computed once: no record looked at again until a repair ends", async () => {
    await repair("10.0.0.1", 10);
    await repair("10.0.0.2", 20, "failed");
    const finished = counted();
    const summaries = new RepairSummaries(entries, finished.port);
    const read = await summaries.stats(...WIDE, [], new Map());
    assert.deepEqual(read, repairStats(await summaries.read(...WIDE), [], new Map()), "the first reads the histories");
    const first = await summaries.stats(...WIDE, [], new Map());
    assert.deepEqual(first, read);
    const looked = finished.looked;
    // Other bounds around the same repairs: the dashboard's "since 89 days ago" moves on with every request.
    const again = await Promise.all([
      summaries.stats(...WIDE, [], new Map()),
      summaries.stats(WIDE[0] + 1, WIDE[1], [], new Map()),
      summaries.stats(WIDE[0], WIDE[1] - 1, [], new Map()),
      summaries.stats(NOW + 10 * MIN, NOW + 20 * MIN + 1, [], new Map()),
    ]);
    for (const answer of again) assert.equal(answer, first, "the answer computed first");
    assert.equal(finished.looked, looked, "no record's summary looked at again");
    assert.deepEqual(reads, [[1, 2, 100_000]]);

    await repair("10.0.0.3", 30);
    const after = await summaries.stats(...WIDE, [], new Map());
    assert.equal(after[0]?.entries, 3, "a repair that ended since is counted");
    assert.notEqual(finished.looked, looked);
    assert.deepEqual(after, repairStats(await summaries.read(...WIDE), [], new Map()));
  });

  it("statistics equal repairStats of what read answers, for every range and grouping", async () => {
    const ends: Array<[string, number, RepairEntry["status"]]> = [
      ["10.0.0.1", 10, "succeeded"],
      ["10.0.0.2", 20, "failed"],
      ["10.0.0.1", 20, "succeeded"],
      ["10.0.0.3", 35, "succeeded"],
      ["10.0.0.4", 50, "failed"],
    ];
    for (const [address, min, status] of ends) await repair(address, min, status);
    const summaries = new RepairSummaries(entries, store.finished);
    const racks = new Map([["10.0.0.1", 1]]);
    const groupings: RepairStatsDimension[][] = [[], ["step"], ["operation", "machineType"], ["rack"], ["rack", "step"]];
    for (const since of [0, 10, 19, 20, 21, 50, 51].map((m) => NOW + m * MIN))
      for (const until of [10, 20, 21, 50, 51, 600].map((m) => NOW + m * MIN))
        for (const groupBy of groupings) {
          const expected = repairStats(await summaries.read(since, until), groupBy, racks);
          assert.deepEqual(await summaries.stats(since, until, groupBy, racks), expected, `[${since - NOW}, ${until - NOW}) by ${groupBy.join()}`);
        }
  });

  it("past the read's bound, the repairs are counted without a summary, and the next query reads on", async () => {
    for (const [i, address] of ["10.0.0.1", "10.0.0.2", "10.0.0.3"].entries()) await repair(address, 10 + i);
    const summaries = new RepairSummaries(entries, store.finished, 10, 9);
    assert.deepEqual(brief(await summaries.read(...WIDE)), [
      ["10.0.0.3", null],
      ["10.0.0.2", MIN],
      ["10.0.0.1", MIN],
    ]);
    assert.deepEqual(brief(await summaries.read(...WIDE)), [
      ["10.0.0.3", MIN],
      ["10.0.0.2", MIN],
      ["10.0.0.1", MIN],
    ]);
    assert.deepEqual(reads, [
      [1, 3, 9],
      [3, 3, 9],
    ]);
  });

  it("keeps at most its bound, dropping the oldest repairs' summaries first", async () => {
    for (const [i, address] of ["10.0.0.1", "10.0.0.2", "10.0.0.3"].entries()) await repair(address, 10 + i);
    const summaries = new RepairSummaries(entries, store.finished, 2);
    assert.deepEqual(
      brief(await summaries.read(...WIDE)),
      [
        ["10.0.0.3", MIN],
        ["10.0.0.2", MIN],
        ["10.0.0.1", MIN],
      ],
      "a range wider than the bound is still answered whole",
    );
    assert.equal(summaries.size, 2);
    await summaries.read(NOW + 11 * MIN, NOW + 600 * MIN);
    assert.deepEqual(reads, [[1, 3, 100_000]], "entries 2 and 3 were kept");
    await summaries.read(...WIDE);
    assert.deepEqual(reads.at(-1), [1, 1, 100_000], "entry 1, the oldest, was dropped");
  });

  it("nothing finished in the range: nothing read", async () => {
    await repair("10.0.0.1", 10);
    assert.deepEqual(await new RepairSummaries(entries, store.finished).read(NOW + 11 * MIN, NOW + 60 * MIN), []);
    assert.deepEqual(reads, []);
  });

  it("a stored record that differs from the one summarized (a restored database) is summarized anew", async () => {
    // Entry 1 drains from minute 8 on: its draining time runs to when its record says it ended.
    const { entry } = await store.entries.add(
      createRepairEntry({ address: "10.0.0.1", machineType: "qemu", operation: "unhealthy", serial: null, source: "sabakan" }, NOW),
      "test",
      NOW,
      "sabakan",
    );
    await store.entries.change(
      entry.index,
      (e) => e && [{ entry: { ...e, status: "processing", stepStatus: "draining" }, kind: "transition", reason: "drain" }],
      NOW + 8 * MIN,
      "kintsugi",
    );
    const ended = (status: FinishedRepair["status"], finishedMin: number): FinishedRepair[] => [
      {
        sequence: 9,
        entryIndex: entry.index,
        address: "10.0.0.1",
        machineType: "qemu",
        operation: "unhealthy",
        source: "sabakan",
        createdAt: NOW,
        finishedAt: NOW + finishedMin * MIN,
        status,
        proof: null,
      },
    ];
    let records = ended("deleted", 9);
    const summaries = new RepairSummaries(entries, { kept: () => records, summaryOf: () => undefined });
    assert.deepEqual(brief(await summaries.read(...WIDE)), [["10.0.0.1", MIN]]);
    records = ended("deleted", 9.5);
    assert.deepEqual(brief(await summaries.read(...WIDE)), [["10.0.0.1", 1.5 * MIN]], "another end time");
    records = ended("failed", 9.5);
    await summaries.read(...WIDE);
    assert.deepEqual(
      reads.map(([first]) => first),
      [1, 1, 1],
      "another status is read anew too",
    );
  });

  it("a summary the leader stored answers without a read; the others are read", async () => {
    await repair("10.0.0.1", 10);
    await repair("10.0.0.2", 20);
    const [older] = store.finished.list().filter((r) => r.address === "10.0.0.1");
    const stored = new Map([[older!.sequence, { drainingMs: 7 * MIN, stepsNeeded: 3, finalStep: 2 }]]);
    const summaries = new RepairSummaries(entries, { kept: () => store.finished.kept(), summaryOf: (sequence) => stored.get(sequence) });
    const read = await summaries.read(...WIDE);
    assert.deepEqual(brief(read), [
      ["10.0.0.2", MIN],
      ["10.0.0.1", 7 * MIN],
    ]);
    assert.deepEqual(reads, [[2, 2, 100_000]], "only the repair without a stored summary is read");
  });
});
