import type { ControlPlane } from "./control-planes.js";
import { isFinished } from "./repair-entry.js";
import type { RepairPlan, RepairSnapshot } from "./repair-plan.js";
import { waitForControlPlane, type WaitingFor } from "./repair-wait.js";

/** The control planes named in a wait at most (the count says how many more). */
const NAMED_PLANES = 5;

/**
 * Why etcd is not good for repair, or null when it is: CKE's `EtcdIsGoodForRepair` (server/node_filter.go) with
 * what kintsugi sees of etcd, the control planes' Nodes. A control plane that is Ready stands for an etcd member in
 * sync, one that is not Ready for the member of a failed control plane. CKE asks that the cluster answer
 * (`IsHealthy`: a majority of the members, etcd's quorum), that every member out of sync be on a failed control plane
 * (here, by the stand-in, always), and that at least `control-plane-count` - 1 members be in sync. With no control
 * plane known (no Node labelled as one, no generated configuration) nothing is known of etcd, and nothing is checked.
 */
export function etcdNotGoodForRepair(planes: readonly ControlPlane[], controlPlaneCount: number): string | null {
  if (planes.length === 0) return null;
  const down = planes.filter((p) => !p.ready);
  const ready = planes.length - down.length;
  const quorum = ready * 2 > planes.length;
  if (quorum && ready >= controlPlaneCount - 1) return null;
  const names = down.slice(0, NAMED_PLANES).map((p) => p.name);
  const more = down.length > NAMED_PLANES ? ` and ${down.length - NAMED_PLANES} more` : "";
  const why = quorum ? `fewer than control-plane-count ${controlPlaneCount} - 1 are Ready` : `no majority of them is Ready (etcd's quorum)`;
  return `etcd is not good for repair: ${ready} of ${planes.length} control planes are Ready (not Ready: ${names.join(", ")}${more}), ${why}; no repair operation runs until it is`;
}

/**
 * The pass when etcd is not good for repair: as CKE's `DecideOps` drops every operation `repairOps` returned
 * (server/strategy.go), nothing happens to any entry (no dequeue, no success, no drain, command, back-off or watch
 * expiry), and every unfinished entry says why. Jobs already running finish as they would.
 */
export function frozenPlan(snapshot: RepairSnapshot, why: string): RepairPlan {
  const wait: WaitingFor = waitForControlPlane(why, null);
  const held = new Map<number, WaitingFor>();
  for (const entry of snapshot.entries) if (!isFinished(entry)) held.set(entry.index, wait);
  return { actions: [], wakeAt: null, held, waiting: new Map() };
}
