import type { ClusterGeneration } from "../../src/domain/cluster/generation-record.js";
import type { PollRecord } from "../../src/domain/replay/poll-record.js";
import type { RemediationRecord } from "../../src/domain/replay/remediation-record.js";
import type { RepairEntry } from "../../src/domain/queue/repair-entry.js";
import type { KintsugiStore } from "../../src/store/store-port.js";
import { ACTOR, cluster, newEntry, outcome } from "../store/conformance/store-harness.js";
import { EVIDENCE } from "../store/conformance/evidence-cases.js";
import { NOW } from "./fixtures.js";
import { readPollRecords, readRemediationRecords } from "./replay-records.js";

/** The health checks whose pause {@link writeRealisticHistory} sets. */
export const PAUSED_CHECKS = ["kubelet", "disk"] as const;

/** Every index {@link writeRealisticHistory} hands out, and one past them (never handed out). */
export const HANDED_OUT_INDEXES = [1, 2, 3, 4, 5, 6, 7, 8] as const;

/**
 * Writes what an installation accumulates, through the port: entries added (by the API and by a poll), transitioned,
 * noted, backing off, marked for deletion and dequeued (4, 5 and 7, the newest: so indexes have gaps and the next
 * index, 8, is above every entry left), a back-off reset; every setting; poll outcomes (one keeping skip counts beside its bounded list); generation records of every
 * kind, a repeated failure included; machine holds (IPv4 and IPv6, with and without an end, one replaced, one released);
 * the replay records of that poll and of a health check's remediation.
 */
export async function writeRealisticHistory(store: KintsugiStore): Promise<void> {
  const add = async (address: string) => (await store.entries.add(newEntry(address), `added ${address}`, NOW, ACTOR)).entry.index;
  for (const address of ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5"]) await add(address);
  await store.entries.change(
    1,
    (e) =>
      e && [
        {
          entry: { ...e, status: "processing", stepStatus: "draining", nodename: "node-1", lastTransitionTime: NOW + 1000 },
          kind: "transition",
          reason: "draining",
        },
        // Proof of repair evidence (migration 008) rides along, so copies and backups are checked to keep it.
        {
          entry: { ...e, status: "processing", stepStatus: "watching", nodename: "node-1", lastTransitionTime: NOW + 2000, evidence: { ...EVIDENCE, step: 0 } },
          kind: "transition",
          reason: "repairing",
          detail: "power cycled",
        },
      ],
    NOW + 2000,
    "kintsugi",
  );
  await store.entries.change(
    2,
    (e) => e && [{ entry: e, kind: "note", reason: "waiting for the node to drain", detail: "2 pods left" }],
    NOW + 3000,
    "kintsugi",
  );
  await store.entries.change(
    3,
    (e) => e && [{ entry: { ...e, drainBackoffCount: 2, drainBackoffExpire: NOW + 60_000 }, kind: "transition", reason: "drain failed" }],
    NOW + 4000,
    "kintsugi",
  );
  await store.entries.requestDelete((e) => e.index === 4, "deleted by an operator", NOW + 5000, "alice");
  await store.entries.dequeue(4, () => "deleted", NOW + 6000, "kintsugi");
  await store.entries.dequeue(5, () => "finished", NOW + 7000, "kintsugi");
  await store.entries.resetBackoff("reset by an operator", NOW + 8000, "bob");
  await store.enqueue(
    () => ({
      add: [{ entry: newEntry("10.0.0.6", { source: "sabakan" }), reason: "enqueued by sabakan-triggered repair" }],
      outcome: (enqueued: readonly RepairEntry[]) => ({ ...outcome(4), enqueued: [...enqueued] }),
      pollRecord: REALISTIC_POLL,
    }),
    NOW + 9000,
    "sabakan",
  );
  // A health check that found an unhealthy node but enqueued nothing (held): its record is written alone.
  await store.enqueue(() => ({ add: [], outcome: null, remediationRecord: REALISTIC_REMEDIATION }), NOW + 9500, "kintsugi");
  await store.outcomes.record(outcome(5));
  // A storm's outcome: its list bounded, its counts whole (what a copy must carry beside the list).
  await store.outcomes.record({
    ...outcome(6),
    skippedCounts: {
      total: 1_500,
      byKind: [
        { kind: "queue_limit", machines: 1_499 },
        { kind: "no_address", machines: 1 },
      ],
    },
  });
  await store.entries.dequeue(await add("10.0.0.7"), () => "finished", NOW + 10_000, "kintsugi");

  const s = store.settings;
  await s.setRepairQueueEnabled(false);
  await s.setAutoRepairEnabled(false);
  await s.setAutoRepairVariables({ having: { states: ["UNHEALTHY"], racks: [1] }, notHaving: null });
  await s.setClusterGenerationEnabled(false);
  await s.setClusterVariables({ having: { roles: ["cs"] }, notHaving: { states: ["RETIRED"] } });
  await s.setClusterTemplate({ text: "# the template, comments kept\nname: tokyo\n", setAt: NOW });
  await s.setHealthCheckPaused("kubelet", true);
  await s.setHealthCheckPaused("disk", false);
  await s.setConstraints({ maximumRepairQueueEntries: 5, minimumWorkers: 2 });
  await s.setRepairWaits([{ index: 3, kind: "HOLD", message: "held by alice: vendor swap", until: NOW + 3_600_000, domain: null }]);

  const g = store.generations;
  await g.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
  await g.recordFailed(NOW + 1000, "schedule", "sabakan did not answer");
  await g.recordFailed(NOW + 2000, "schedule", "sabakan did not answer");
  await g.recordRecovered(NOW + 3000, "schedule");
  // Under the other policy, so that a copy is seen to carry each record's policy.
  await g.recordGenerated(NOW + 4000, "template", cluster(2), ["worker 10.0.1.3 added"], "all_healthy");
  await g.recordFailed(NOW + 5000, "event", "template is not valid YAML", "all_healthy");

  const hold = (address: string, reason: string, until: number | null, setBy = "alice") =>
    store.holds.hold(() => ({ ok: true, hold: { address, reason, setBy, setAt: NOW, until } }), setBy);
  await hold("10.0.0.9", "firmware update", null);
  await hold("fd00::9", "waiting for a part", NOW + 3_600_000, "bob");
  await hold("10.0.0.10", "to be released", null);
  await hold("10.0.0.11", "first reason", null);
  await hold("10.0.0.11", "replaced reason \u0007", NOW + 60_000);
  await store.holds.release("10.0.0.10", "bob");
}

/** The poll {@link writeRealisticHistory} records: sabakan reported 10.0.0.6 unhealthy (and one machine without an address). */
const REALISTIC_POLL: PollRecord = {
  time: NOW + 9000,
  machines: {
    serial: ["s6", "s-none"],
    ipv4: ["10.0.0.6", null],
    rack: [1, 2],
    types: ["IPMI-2.0"],
    type: [0, 0],
    state: [2, 3],
    seconds: [600, 30],
    standing: [1, 0],
  },
  queue: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
  held: [],
  constraints: { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 300, maximumUnhealthyMachinesPerRack: 2 },
  enqueued: ["10.0.0.6"],
  shortCircuited: false,
};

/** The health check's remediation {@link writeRealisticHistory} records. */
const REALISTIC_REMEDIATION: RemediationRecord = {
  time: NOW + 9500,
  check: "kubelet",
  gate: { open: true, reason: null },
  targets: 4,
  pending: 0,
  unhealthy: { node: ["node-9", "node-x"], address: ["10.0.0.9", null], addressProblem: [null, "the node has no InternalIP"], machineType: ["IPMI-2.0", null] },
  queue: ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.6"],
  held: ["10.0.0.9"],
  maximumRepairQueueEntries: 5,
  enqueued: [],
  shortCircuited: false,
};

/** A generation record as plain data (its configuration read through the getter). */
function plain(g: ClusterGeneration | null): object | null {
  return g === null ? null : { ...g, cluster: g.cluster, changes: [...g.changes] };
}

/** Everything a store answers through the port, after {@link writeRealisticHistory}: what a copy must keep. */
export async function portView(store: KintsugiStore): Promise<object> {
  const s = store.settings;
  const g = store.generations;
  return {
    list: store.entries.list(),
    get: HANDED_OUT_INDEXES.map((i) => store.entries.get(i)),
    history: await Promise.all(HANDED_OUT_INDEXES.map((i) => store.entries.history(i))),
    settings: {
      repairQueueEnabled: s.repairQueueEnabled(),
      autoRepairEnabled: s.autoRepairEnabled(),
      autoRepairVariables: s.autoRepairVariables(),
      clusterGenerationEnabled: s.clusterGenerationEnabled(),
      clusterVariables: s.clusterVariables(),
      clusterTemplate: s.clusterTemplate(),
      healthCheckPaused: [...PAUSED_CHECKS, "never-set"].map((name) => s.healthCheckPaused(name)),
      constraints: s.constraints(),
      repairWaits: s.repairWaits(),
    },
    outcomes: await store.outcomes.last(null),
    finished: store.finished.list(),
    generations: g.last(null).map(plain),
    current: plain(g.current()),
    latest: plain(g.latest()),
    controlPlaneAddresses: [...g.controlPlaneAddresses()],
    byNumber: [0, 1, 2, 3].map((n) => plain(g.generation(n))),
    holds: store.holds.list(),
    replay: {
      polls: await readPollRecords(store.pollRecords, 0, 100),
      remediations: await readRemediationRecords(store.pollRecords, 0, 100),
      size: store.pollRecords.size().records,
    },
  };
}
