import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HealthCheckEvaluation } from "../../../src/domain/health/health-check-evaluation.js";
import { decideRemediation, type RemediationContext } from "../../../src/domain/health/health-check-remediation.js";
import type { MachineHold } from "../../../src/domain/holds/machine-holds.js";
import {
  recordedEvaluation,
  recordedLookups,
  recordedRackLimit,
  recordRemediation,
  type RemediationRecord,
} from "../../../src/domain/replay/remediation-record.js";
import { CHECK_REPAIR, evaluation, target, WORKERS_CHECK } from "../health/health-check-support.js";
import { entry } from "../queue/repair-decision-support.js";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const CHECK = WORKERS_CHECK;
const REPAIR = CHECK_REPAIR;
const types = (node: string) => (node === "n9" ? null : node === "n6" ? "switch" : "IPMI-2.0");
const hold = (address: string): MachineHold => ({ address, reason: "bios", setBy: "ops", setAt: NOW, until: null, source: "api" });
const context = (patch: Partial<RemediationContext> = {}): RemediationContext => ({
  entries: [],
  maximumRepairQueueEntries: 10,
  repair: REPAIR,
  machineTypeOf: types,
  ...patch,
});

describe("recordRemediation (what a health check's remediation read, for the replay)", () => {
  const cases: Array<{ name: string; evaluation: HealthCheckEvaluation; context: RemediationContext }> = [
    {
      name: "unhealthy targets enqueued, pending and healthy ones only counted",
      evaluation: evaluation([target("n1", "unhealthy"), target("n2", "pending"), target("n3", "healthy"), target("n4", "unhealthy")]),
      context: context(),
    },
    { name: "a closed gate", evaluation: evaluation([target("n1", "unhealthy")], false), context: context() },
    {
      name: "no address, unknown type, a type without the operation",
      evaluation: evaluation([target("n1", "unhealthy", null), target("n9", "unhealthy"), target("n6", "unhealthy")]),
      context: context(),
    },
    {
      name: "a persisting entry and a held target",
      evaluation: evaluation([target("n1", "unhealthy"), target("n2", "unhealthy"), target("n3", "unhealthy")]),
      context: context({
        entries: [entry(1, { address: "10.0.0.1" })],
        holds: new Map([
          ["10.0.0.2", hold("10.0.0.2")],
          ["10.9.9.9", hold("10.9.9.9")],
        ]),
      }),
    },
    {
      name: "the queue limit",
      evaluation: evaluation([target("n1", "unhealthy"), target("n2", "unhealthy")]),
      context: context({ entries: [entry(1, { address: "10.0.0.8" })], maximumRepairQueueEntries: 2 }),
    },
    {
      name: "the per-rack limit (racks 1, 1, 1 and 5; a target with no address; one sabakan names no rack for)",
      evaluation: evaluation([
        target("n1", "unhealthy"),
        target("n2", "unhealthy"),
        target("n3", "unhealthy"),
        target("n5", "unhealthy"),
        target("n7", "unhealthy", null),
        target("n8", "unhealthy"),
      ]),
      context: context({ rackLimit: { maximum: 2, rackOf: (a) => (a === "10.0.0.5" ? 5 : a === "10.0.0.8" ? null : 1) } }),
    },
  ];
  for (const c of cases) {
    it(`decides the same from the record: ${c.name}`, () => {
      const decided = decideRemediation(CHECK, c.evaluation, c.context);
      const record = JSON.parse(JSON.stringify(recordRemediation(c.evaluation, c.context, decided, NOW))) as RemediationRecord;
      const again = decideRemediation(CHECK, recordedEvaluation(record), {
        entries: record.queue.map((address, i) => entry(i + 1, { address })),
        maximumRepairQueueEntries: record.maximumRepairQueueEntries,
        repair: REPAIR,
        ...recordedLookups(record),
        ...(recordedRackLimit(record) && { rackLimit: recordedRackLimit(record) }),
      });
      // Who held a machine and why is not kept: the replay compares what was enqueued and which targets were held.
      const fate = (d: typeof decided) => ({ enqueue: d.enqueue, held: d.held.map((h) => h.node) });
      assert.deepEqual(fate(again), fate(decided));
      assert.deepEqual(
        [recordedEvaluation(record).unhealthyCount, recordedEvaluation(record).currentHealthy],
        [c.evaluation.unhealthyCount, c.evaluation.currentHealthy],
        "the counts the gate weighs",
      );
    });
  }

  it("records what it did: counts, the held targets, the short circuit", () => {
    const e = evaluation([target("n1", "unhealthy"), target("n2", "unhealthy"), target("n3", "healthy")]);
    const c = context({ maximumRepairQueueEntries: 1, holds: new Map([["10.0.0.2", hold("10.0.0.2")]]) });
    const r = recordRemediation(e, c, decideRemediation(CHECK, e, c), NOW);
    assert.deepEqual(
      { targets: r.targets, nodes: r.unhealthy.node, held: r.held, enqueued: r.enqueued, short: r.shortCircuited },
      { targets: 3, nodes: ["n1", "n2"], held: ["10.0.0.2"], enqueued: ["10.0.0.1"], short: false },
    );
    assert.equal(
      recordRemediation(evaluation([target("n1", "unhealthy"), target("n2", "pending")]), c, decideRemediation(CHECK, e, c), NOW).pending,
      1,
      "pending targets count against maxUnhealthy: the replayed gate needs them",
    );
    const full = context({ maximumRepairQueueEntries: 0 });
    assert.equal(recordRemediation(e, full, decideRemediation(CHECK, e, full), NOW).shortCircuited, true);
  });

  it("keeps the racks and the limit only when the per-rack limit applied", () => {
    const e = evaluation([target("n1", "unhealthy"), target("n2", "unhealthy", null), target("n3", "healthy")]);
    const on = context({ rackLimit: { maximum: 3, rackOf: (a) => (a === "10.0.0.1" ? 7 : 8) } });
    const kept = recordRemediation(e, on, decideRemediation(CHECK, e, on), NOW);
    assert.deepEqual({ rack: kept.unhealthy.rack, limit: kept.rackLimit }, { rack: [7, null], limit: 3 }, "the unhealthy targets' racks, in their column");
    for (const [name, c] of [
      ["no rack limit in the context", context()],
      ["a limit of 0 (off)", context({ rackLimit: { maximum: 0, rackOf: () => 1 } })],
    ] as const) {
      const r = recordRemediation(e, c, decideRemediation(CHECK, e, c), NOW);
      assert.deepEqual({ rack: r.unhealthy.rack, limit: r.rackLimit }, { rack: undefined, limit: undefined }, name);
      assert.equal(recordedRackLimit(r, 1), undefined, `${name}: a replayed limit has no racks to apply over`);
    }
    assert.equal(recordedRackLimit(kept, 0), undefined, "a replayed limit of 0 turns it off");
    assert.equal(recordedRackLimit(kept, 1)?.rackOf("10.0.0.1"), 7, "a replayed limit applies over the recorded racks");
  });
});
