import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideIntake, type IntakeInput } from "../../../src/domain/intake/auto-repair-intake.js";
import { recordPoll } from "../../../src/domain/replay/poll-record.js";
import type { SabakanMachine } from "../../../src/domain/sabakan/sabakan-machine.js";
import { keptSkips, LISTED_SKIPS, skippedCountsOf } from "../../../src/domain/intake/skipped-bound.js";
import { NOW } from "../../support/fixtures.js";
import { ACTOR, outcome, type StoreHarness } from "./store-harness.js";
import { readPollRecords } from "../../support/replay-records.js";

const MACHINES = 10_000;
/** A whole data center's machine `i`, UNREACHABLE: 225 racks of 40, then 500 racks of 2; every 500th has no address. */
const machine = (i: number): SabakanMachine => ({
  serial: `SN${String(i).padStart(8, "0")}`,
  rack: i < 9_000 ? Math.floor(i / 40) : 225 + Math.floor((i - 9_000) / 2),
  indexInRack: i < 9_000 ? i % 40 : i % 2,
  role: "cs",
  ipv4: i % 500 === 0 ? [] : [`10.${Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`],
  bmcType: "IPMI-2.0",
  state: "UNREACHABLE",
  durationSeconds: 600,
  stateSince: NOW,
  registerDate: 0,
  retireDate: 0,
  labels: {},
});

/**
 * A storm: 10,000 machines down; the big racks pass the per-rack limit, and the small racks' 1,000 machines the queue
 * limit's short circuit holds back. Its skips are about 1.7 MB of JSON, over etcd's default request limit of 1.5 MiB.
 */
function storm() {
  const input: IntakeInput = {
    machines: Array.from({ length: MACHINES }, (_, i) => machine(i)),
    entries: [],
    nodes: new Map(),
    constraints: { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 3 },
  };
  const decision = decideIntake(input);
  return { decision, record: recordPoll(input, decision, NOW) };
}

/** What a poll outcome keeps of its skipped machines: a bounded list, whole counts. */
export function skippedCountCases(h: StoreHarness): void {
  describe("skipped counts", () => {
    it("commits a 10,000-machine storm's outcome with its poll record, listing 1,000 skips and counting all of them", async () => {
      const { decision, record } = storm();
      assert.equal(decision.skipped.length, MACHINES);
      const store = await h.open();
      const { outcome: written } = await store.enqueue(
        () => ({
          add: [],
          outcome: (enqueued) => ({
            time: NOW,
            trigger: "schedule",
            machinesSeen: MACHINES,
            enqueued,
            ...keptSkips(decision.skipped),
            shortCircuit: decision.shortCircuit,
            error: null,
          }),
          pollRecord: record,
        }),
        NOW,
        ACTOR,
      );
      assert.ok(JSON.stringify(decision.skipped).length > 1.5 * 1024 * 1024, "the whole list is over etcd's request limit");
      const counts = {
        total: MACHINES,
        byKind: [
          { kind: "rack_limit", machines: 8_982 },
          { kind: "queue_limit", machines: 998 },
          { kind: "no_address", machines: 20 },
        ],
      };
      for (const open of [async () => store, () => h.reopen()]) {
        const s = await open();
        const [kept] = await s.outcomes.last(1);
        assert.deepEqual(kept, written);
        assert.equal(kept?.skipped.length, LISTED_SKIPS);
        assert.deepEqual(kept?.skippedCounts, counts);
        assert.equal(kept?.skipped.filter((m) => m.kind === "no_address").length, 20, "every no_address skip is listed");
        assert.equal(kept?.skipped.filter((m) => m.kind === "queue_limit").length, 490, "the big kinds share the rest");
        assert.equal(new Set(kept?.skipped.filter((m) => m.kind === "rack_limit").map((m) => m.rack)).size, 225, "every rack over the limit is named");
        assert.equal((await readPollRecords(s.pollRecords, 0, 10)).records.length, 1, "the poll record committed with it");
      }
    });

    it("reads an outcome that keeps no counts (stored before the bound) without them: its list is whole", async () => {
      const store = await h.open();
      const written = await store.outcomes.record(outcome(1));
      const [kept] = await (await h.reopen()).outcomes.last(1);
      assert.deepEqual(kept, written);
      assert.equal(kept?.skippedCounts, undefined);
      assert.deepEqual(kept && skippedCountsOf(kept), { total: 1, byKind: [{ kind: "no_address", machines: 1 }] });
    });
  });
}
