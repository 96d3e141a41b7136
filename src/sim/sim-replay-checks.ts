import type { HealthCheckConfig } from "../domain/health/health-check-config.js";
import type { AutoRepairOutcome } from "../domain/intake/auto-repair-outcome.js";
import { skippedCountsOf } from "../domain/intake/skipped-bound.js";
import type { RepairEntry } from "../domain/queue/repair-entry.js";
import type { RepairConfig } from "../domain/queue/repair-config.js";
import { replayAutoRepair, type ReplayedPoll, type ReplayRecords } from "../domain/replay/auto-repair-replay.js";
import type { RemediationReplayConfig } from "../domain/replay/remediation-replay.js";
import type { PollRecord } from "../domain/replay/poll-record.js";
import type { RemediationRecord } from "../domain/replay/remediation-record.js";
import { decodeReplay } from "../store/poll-record-schema.js";
import type { KintsugiStore } from "../store/store-port.js";
import type { Checks } from "./sim-checks.js";

/** What the run knew of one health-check evaluation that the records do not say: the rack limit, and sabakan's state. */
export interface EvaluationTruth {
  readonly rackLimit: number;
  readonly sabakanUp: boolean;
}

/** The queue cap of the replay that opens the gate: all or nothing, a full queue would hide what the rack limit holds. */
const WIDE_OPEN = 1_000_000;

/** The replay's repair time: only entries the replay adds (an opened gate's) use it; the live ones keep their lifetimes. */
const REPAIR_SECONDS = 600;

/**
 * The what-if replay against the run it replays, at the end of a run: every record the run wrote reads back
 * (`replay-records-readable`), and, replayed with the health check's gate opened (maxUnhealthy 100%) and the queue's cap
 * lifted, no target is enqueued from a rack with more unhealthy targets than the per-rack limit in force, counted by the world's racks,
 * for every evaluation in which sabakan answered (`replay-opened-gate-rack-limit`): a closed gate's record must keep
 * its racks for this, as the live rule reads them. First, replayed with the limits in force, the replay reproduces
 * the live run until it decided by what the records do not carry (`replay-with-limits-in-force-reproduces-live`,
 * see checkInForce).
 */
export async function checkReplay(
  checks: Checks,
  store: KintsugiStore,
  check: HealthCheckConfig,
  repair: RepairConfig,
  truth: {
    readonly evaluations: ReadonlyMap<number, EvaluationTruth>;
    readonly rackOf: (address: string) => number | null;
    /**
     * When the live run first decided by what its records do not carry: escalation acted (holds and operations), or the
     * repair procedures changed (the replay decides with the ones in force at the end); null: never.
     */
    readonly unrecordedFrom: number | null;
  },
): Promise<void> {
  const kept = store.pollRecords.size().records + 1;
  const read = async <R>(area: "intake" | "health-check") => {
    const decoded = (await store.pollRecords.stored(area, 0, kept)).bodies.map((body) => decodeReplay(area, body));
    checks.check(
      "replay-records-readable",
      decoded.every((d) => d.ok),
      () => `a ${area} record this run wrote cannot be read back`,
    );
    return decoded.flatMap((d) => (d.ok ? [d.replay.record as R] : []));
  };
  const records = { polls: await read<PollRecord>("intake"), remediations: await read<RemediationRecord>("health-check") };
  const config = { checks: new Map([[check.name, check]]), repair };
  checkInForce(checks, records, config, truth.unrecordedFrom);

  const opened = replayAutoRepair(
    records,
    {
      constraints: { maximumRepairQueueEntries: WIDE_OPEN },
      repairSeconds: REPAIR_SECONDS,
      healthChecks: new Map([[check.name, { maxUnhealthy: { kind: "percent", value: 100 } }]]),
    },
    config,
  );
  const byTime = new Map(records.remediations.map((r) => [r.time, r]));
  for (const p of opened.polls) {
    const record = p.source.kind === "health-check" ? byTime.get(p.time) : undefined;
    const known = truth.evaluations.get(p.time);
    if (!record || !known?.sabakanUp || known.rackLimit <= 0) continue;
    const perRack = new Map<number, number>();
    for (const address of record.unhealthy.address) {
      const rack = address === null ? null : truth.rackOf(address);
      if (rack !== null) perRack.set(rack, (perRack.get(rack) ?? 0) + 1);
    }
    for (const t of p.targets) {
      if (t.simulated !== "enqueued" || t.address === null) continue;
      const rack = truth.rackOf(t.address);
      const count = rack === null ? 0 : (perRack.get(rack) ?? 0);
      checks.check(
        "replay-opened-gate-rack-limit",
        count <= known.rackLimit,
        () =>
          `replayed with the gate opened, ${t.node} (${t.address}) is enqueued at ${new Date(p.time).toISOString()} from rack ${rack}, which had ${count} unhealthy targets (maximum-unhealthy-machines-per-rack ${known.rackLimit})`,
        t.address,
      );
    }
  }
}

/**
 * Replayed with the limits in force (every record's own constraints and gate, the runner unchanged), the replay
 * reproduces the live run (`replay-with-limits-in-force-reproduces-live`): no evaluation differs, machine by machine
 * or in its short circuit, before the live run first decided by what the records do not carry: escalation acting
 * (see escalationActed), or a restart with other repair procedures (the replay decides with the ones in force at the
 * end). It holds the replay's model of the queue (entries the live run enqueued, operators' entries, recently repaired
 * machines) to the live intake's, record by record.
 */
function checkInForce(checks: Checks, records: ReplayRecords, config: RemediationReplayConfig, unrecordedFrom: number | null): void {
  const inForce = replayAutoRepair(records, { constraints: {}, repairSeconds: REPAIR_SECONDS }, config);
  const until = unrecordedFrom ?? Number.POSITIVE_INFINITY;
  const differing = inForce.polls.filter((p) => p.time < until);
  const first = differing[0];
  const what = (p: ReplayedPoll): string => {
    const machines = [...p.differences.map((d) => `${d.serial} ${d.address}`), ...p.targets.map((t) => `${t.node} ${t.address}`)];
    const fates = [...p.differences.map((d) => `${d.live} -> ${d.simulated}`), ...p.targets.map((t) => `${t.live} -> ${t.simulated}`)];
    const where = p.source.kind === "sabakan" ? "sabakan" : `health-check:${p.source.check}`;
    return `${new Date(p.time).toISOString()} ${where}: was enqueued ${p.live.enqueued.length}, queue ${p.live.queueSize}, would be enqueued ${p.simulated.enqueued.length}, queue ${p.simulated.queueSize}; ${machines.map((m, i) => `${m}: ${fates[i]}`).join(", ")}`;
  };
  checks.check(
    "replay-with-limits-in-force-reproduces-live",
    first === undefined,
    () => `replayed with the limits in force, ${first ? what(first) : ""}`,
    first?.differences[0]?.address ?? first?.targets[0]?.address ?? null,
  );
}

/**
 * Whether escalation acted in one intake, deciding by what no replay record carries: it held a machine, enqueued its
 * own operation (`operation`, null when it holds instead), or the poll skipped a machine as escalated (`outcome`, a sabakan poll's). From then on the replay with
 * the limits in force may differ from the live run, and checkInForce stops comparing.
 */
export function escalationActed(
  operation: string | null,
  intake: { readonly held: readonly string[]; readonly added: readonly RepairEntry[]; readonly outcome: AutoRepairOutcome | undefined },
): boolean {
  const skipped = intake.outcome ? skippedCountsOf(intake.outcome).byKind.some((k) => k.kind === "escalated" && k.machines > 0) : false;
  return intake.held.length > 0 || (operation !== null && intake.added.some((e) => e.operation === operation)) || skipped;
}
