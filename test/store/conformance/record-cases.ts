import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KEPT_OUTCOMES } from "../../../src/domain/intake/auto-repair-outcome.js";
import { KEPT_GENERATIONS } from "../../../src/domain/cluster/generation-record.js";
import { DEFAULT_CONSTRAINTS } from "../../../src/domain/shared/constraints.js";
import { DEFAULT_AUTO_REPAIR_VARIABLES, DEFAULT_CLUSTER_VARIABLES } from "../../../src/domain/sabakan/machine-params.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { cluster, commitsOf, outcome, type StoreHarness } from "./store-harness.js";

const MINUTE = 60_000;

/** One setting: its default, a value to set, and how to read and write it. */
interface SettingCase {
  readonly name: string;
  readonly key: string;
  readonly fallback: unknown;
  readonly value: unknown;
  get(s: KintsugiStore): unknown;
  set(s: KintsugiStore): Promise<void>;
}

const variables = { having: { racks: [1, 2] }, notHaving: null };
// As an operator's file may be: kept byte for byte, spacing and an unknown key included.
const variablesFile = `{"having":  {"racks": [1, 2], "rack": 9}}`;
const template = { text: "name: tokyo # kept verbatim\n", setAt: NOW };
const waits = [
  { index: 3, kind: "HOLD" as const, message: "held by alice: vendor swap", until: NOW + MINUTE, domain: null },
  { index: 4, kind: "PACING" as const, message: "pacing: rack 3 allows 1 repair in progress (no finished entry yet)", until: null, domain: "rack=3" },
  { index: 5, kind: "MACHINE_BUSY" as const, message: "machine 10.0.0.3 is being repaired by entry 3", until: null, domain: null, entryIndex: 3 },
];
const settingCases: SettingCase[] = [
  {
    name: "repair queue enabled",
    key: "repair-queue-enabled",
    fallback: true,
    value: false,
    get: (s) => s.settings.repairQueueEnabled(),
    set: (s) => s.settings.setRepairQueueEnabled(false),
  },
  {
    name: "auto-repair enabled",
    key: "auto-repair-enabled",
    fallback: true,
    value: false,
    get: (s) => s.settings.autoRepairEnabled(),
    set: (s) => s.settings.setAutoRepairEnabled(false),
  },
  {
    name: "auto-repair variables",
    key: "auto-repair-variables",
    fallback: DEFAULT_AUTO_REPAIR_VARIABLES,
    value: variables,
    get: (s) => s.settings.autoRepairVariables(),
    set: (s) => s.settings.setAutoRepairVariables(variables),
  },
  {
    name: "auto-repair variables' text",
    key: "auto-repair-variables",
    fallback: null,
    value: variablesFile,
    get: (s) => s.settings.autoRepairVariablesText(),
    set: (s) => s.settings.setAutoRepairVariables(variables, variablesFile),
  },
  {
    name: "auto-repair variables set from a text (no text among them)",
    key: "auto-repair-variables",
    fallback: DEFAULT_AUTO_REPAIR_VARIABLES,
    value: variables,
    get: (s) => s.settings.autoRepairVariables(),
    set: (s) => s.settings.setAutoRepairVariables(variables, variablesFile),
  },
  {
    name: "cluster generation enabled",
    key: "cluster-generation-enabled",
    fallback: true,
    value: false,
    get: (s) => s.settings.clusterGenerationEnabled(),
    set: (s) => s.settings.setClusterGenerationEnabled(false),
  },
  {
    name: "cluster variables",
    key: "cluster-variables",
    fallback: DEFAULT_CLUSTER_VARIABLES,
    value: variables,
    get: (s) => s.settings.clusterVariables(),
    set: (s) => s.settings.setClusterVariables(variables),
  },
  {
    name: "cluster variables' text",
    key: "cluster-variables",
    fallback: null,
    value: variablesFile,
    get: (s) => s.settings.clusterVariablesText(),
    set: (s) => s.settings.setClusterVariables(variables, variablesFile),
  },
  {
    name: "cluster template",
    key: "cluster-template",
    fallback: null,
    value: template,
    get: (s) => s.settings.clusterTemplate(),
    set: (s) => s.settings.setClusterTemplate(template),
  },
  {
    name: "the published waits",
    key: "repair-waits",
    fallback: [],
    value: waits,
    get: (s) => s.settings.repairWaits(),
    set: (s) => s.settings.setRepairWaits(waits),
  },
  {
    name: "the escalation releases",
    key: "escalation-releases",
    fallback: new Map(),
    value: new Map([["10.0.0.7", NOW]]),
    get: (s) => s.settings.escalationReleases(),
    set: (s) => s.settings.noteRelease("10.0.0.7", NOW),
  },
  {
    name: "a health check's pause",
    key: "health-check-paused:disk/a b",
    fallback: null,
    value: false,
    get: (s) => s.settings.healthCheckPaused("disk/a b"),
    set: (s) => s.settings.setHealthCheckPaused("disk/a b", false),
  },
];

/** Settings, constraints, poll outcomes and cluster generation records. */
export function recordCases(h: StoreHarness): void {
  describe("settings", () => {
    for (const c of settingCases) {
      it(`${c.name}: the default until set, then the value set, across a restart, announced by key`, async () => {
        const store = await h.open();
        assert.deepEqual(c.get(store), c.fallback);
        const commits = commitsOf(store);
        await c.set(store);
        assert.deepEqual(c.get(store), c.value, "read your own write");
        assert.deepEqual(commits, [{ entries: [], outcome: null, generation: null, settings: [c.key] }]);
        assert.deepEqual(c.get(await h.reopen()), c.value);
      });
    }

    it("escalation releases: a release merges with those noted, a machine's later release replaces its earlier one", async () => {
      const store = await h.open();
      await store.settings.noteRelease("10.0.0.7", NOW);
      await store.settings.noteRelease("fd00::1", NOW + MINUTE);
      await store.settings.noteRelease("10.0.0.7", NOW + 2 * MINUTE);
      const expected = new Map([
        ["fd00::1", NOW + MINUTE],
        ["10.0.0.7", NOW + 2 * MINUTE],
      ]);
      assert.deepEqual(store.settings.escalationReleases(), expected);
      assert.deepEqual((await h.reopen()).settings.escalationReleases(), expected);
    });

    it("constraints: the defaults, overlaid by the config's values, overlaid by the values set, which a later config does not undo", async () => {
      let store = await h.open({ initialConstraints: { minimumWorkers: 3, maximumWorkers: 9 } });
      assert.deepEqual(store.settings.constraints(), { ...DEFAULT_CONSTRAINTS, minimumWorkers: 3, maximumWorkers: 9 });
      await store.settings.setConstraints({ maximumWorkers: 10 });
      await store.settings.setConstraints({ controlPlaneCount: 3 });
      assert.deepEqual(
        store.settings.constraints(),
        { ...DEFAULT_CONSTRAINTS, minimumWorkers: 3, maximumWorkers: 10, controlPlaneCount: 3 },
        "a set merges with what was set",
      );
      store = await h.reopen({ initialConstraints: { minimumWorkers: 4, maximumWorkers: 2 } });
      assert.deepEqual(store.settings.constraints(), { ...DEFAULT_CONSTRAINTS, minimumWorkers: 4, maximumWorkers: 10, controlPlaneCount: 3 });
    });
  });

  describe("poll outcomes", () => {
    it(`keeps the newest ${KEPT_OUTCOMES} outcomes across a restart, oldest first, with every field`, async () => {
      const store = await h.open();
      for (let i = 1; i <= KEPT_OUTCOMES + 5; i++) {
        const recorded = await store.outcomes.record(outcome(i));
        if (i <= 2) assert.deepEqual(recorded, { sequence: i, ...outcome(i) });
      }
      const kept = await (await h.reopen()).outcomes.last(null);
      assert.equal(kept.length, KEPT_OUTCOMES);
      assert.deepEqual([kept[0]?.sequence, kept.at(-1)?.sequence], [6, KEPT_OUTCOMES + 5]);
      const reopened = await h.reopen();
      assert.deepEqual(await reopened.outcomes.last(2), [
        { sequence: 1004, ...outcome(1004) },
        { sequence: 1005, ...outcome(1005) },
      ]);
      assert.deepEqual(await reopened.outcomes.last(0), []);
      assert.equal((await reopened.outcomes.last(KEPT_OUTCOMES + 100)).length, KEPT_OUTCOMES, "the older ones are gone, not only left out of last(null)");
      const next = await reopened.outcomes.record(outcome(KEPT_OUTCOMES + 6));
      assert.deepEqual([next.sequence, (await reopened.outcomes.last(null))[0]?.sequence], [KEPT_OUTCOMES + 6, 7], "numbering goes on past the pruned ones");
    });
  });

  describe("cluster generation records", () => {
    it("numbers generated configurations, keeps each by number, and knows the control planes of the one in force", async () => {
      const store = await h.open();
      assert.deepEqual(
        [store.generations.current(), store.generations.latest(), store.generations.last(null), store.generations.controlPlaneAddresses()],
        [null, null, [], []],
      );
      const first = await store.generations.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
      const second = await store.generations.recordGenerated(NOW + MINUTE, "schedule", cluster(2), ["add worker"]);
      assert.deepEqual([first.generation, second.generation, second.sequence], [1, 2, 2]);
      assert.deepEqual(second, {
        sequence: 2,
        outcome: "generated",
        time: NOW + MINUTE,
        lastTime: NOW + MINUTE,
        repeats: 1,
        trigger: "schedule",
        policy: "weighted",
        generation: 2,
        cluster: cluster(2),
        changes: ["add worker"],
        error: null,
      });
      const reopened = await h.reopen();
      assert.deepEqual(reopened.generations.current(), second);
      assert.deepEqual(reopened.generations.generation(1), first);
      assert.equal(reopened.generations.generation(3), null);
      assert.deepEqual(reopened.generations.controlPlaneAddresses(), ["10.0.0.1"]);
    });

    it("folds a failure that repeats the newest record's error into it, and records a recovery", async () => {
      const store = await h.open();
      await store.generations.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
      const commits = commitsOf(store);
      const failed = await store.generations.recordFailed(NOW + MINUTE, "schedule", "broken");
      const again = await store.generations.recordFailed(NOW + 2 * MINUTE, "template", "broken");
      const other = await store.generations.recordFailed(NOW + 3 * MINUTE, "schedule", "other");
      const recovered = await store.generations.recordRecovered(NOW + 4 * MINUTE, "schedule");
      assert.deepEqual([failed.repeated, again.repeated, other.repeated], [false, true, false]);
      assert.deepEqual(again.record, { ...failed.record, repeats: 2, lastTime: NOW + 2 * MINUTE });
      assert.deepEqual([recovered.outcome, recovered.generation, recovered.error], ["recovered", 1, null]);
      assert.deepEqual(
        commits.map((c) => c.generation),
        [failed.record, again.record, other.record, recovered],
      );
      assert.deepEqual(
        (await h.reopen()).generations.last(null).map((g) => [g.sequence, g.outcome, g.repeats, g.error]),
        [
          [1, "generated", 1, null],
          [2, "failed", 2, "broken"],
          [3, "failed", 1, "other"],
          [4, "recovered", 1, null],
        ],
      );
    });

    it("names the policy of every record across a restart (weighted when none is given); a failure under another policy is a new record", async () => {
      const store = await h.open();
      const weighted = await store.generations.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
      const allHealthy = await store.generations.recordGenerated(NOW + MINUTE, "schedule", cluster(2), ["add worker"], "all_healthy");
      const failed = await store.generations.recordFailed(NOW + 2 * MINUTE, "schedule", "broken", "all_healthy");
      const otherPolicy = await store.generations.recordFailed(NOW + 3 * MINUTE, "schedule", "broken");
      const recovered = await store.generations.recordRecovered(NOW + 4 * MINUTE, "schedule", "all_healthy");
      assert.deepEqual(
        [weighted.policy, allHealthy.policy, failed.record.policy, otherPolicy.record.policy, recovered.policy],
        ["weighted", "all_healthy", "all_healthy", "weighted", "all_healthy"],
      );
      assert.equal(otherPolicy.repeated, false);
      assert.deepEqual(
        (await h.reopen()).generations.last(null).map((g) => [g.sequence, g.outcome, g.policy]),
        [
          [1, "generated", "weighted"],
          [2, "generated", "all_healthy"],
          [3, "failed", "all_healthy"],
          [4, "failed", "weighted"],
          [5, "recovered", "all_healthy"],
        ],
      );
    });

    it(`keeps the newest ${KEPT_GENERATIONS} records and never prunes the configuration in force`, async () => {
      const store = await h.open();
      const inForce = await store.generations.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
      for (let i = 1; i <= KEPT_GENERATIONS + 4; i++) await store.generations.recordFailed(NOW + i * MINUTE, "schedule", `error ${i}`);
      const kept = (await h.reopen()).generations;
      const sequences = kept.last(null).map((g) => g.sequence);
      assert.equal(sequences.length, KEPT_GENERATIONS);
      assert.deepEqual([sequences[0], sequences.at(-1)], [6, KEPT_GENERATIONS + 5]);
      assert.deepEqual(kept.current(), inForce, "the configuration in force outlives its turn");
      assert.deepEqual(
        kept.last(1000).map((g) => g.sequence),
        [1, ...sequences],
        "kept: the one in force and the newest 100, nothing else",
      );
      assert.deepEqual(kept.generation(1), inForce);
      assert.deepEqual(kept.controlPlaneAddresses(), ["10.0.0.1"]);
    });
  });
}
