import type { HealthCheckConfig } from "../domain/health/health-check-config.js";
import type { RepairConfig } from "../domain/queue/repair-config.js";
import { replayAutoRepair } from "../domain/replay/auto-repair-replay.js";
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
 * its racks for this, as the live rule reads them.
 */
export async function checkReplay(
  checks: Checks,
  store: KintsugiStore,
  check: HealthCheckConfig,
  repair: RepairConfig,
  truth: { readonly evaluations: ReadonlyMap<number, EvaluationTruth>; readonly rackOf: (address: string) => number | null },
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
