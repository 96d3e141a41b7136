import { CORDONED_BY_ANNOTATION } from "../adapters/ports.js";
import type { SuccessProof } from "../domain/proof/repair-evidence.js";
import type { RepairEntry } from "../domain/queue/repair-entry.js";
import { cordonOwner } from "../domain/queue/stray-cordons.js";
import { REBOOT_ANNOTATION } from "../domain/shared/node-reboot.js";
import { bootIdOf, type SimMachine, type SimWorld } from "./sim-world.js";

// What is true of the simulated data center, as the invariants judge kintsugi against it: never what kintsugi
// believes (its store excepted, where a rule is about what it stored), always what the world is.

/** The machine is a Kubernetes node now (its Node exists). */
export function isNode(m: SimMachine): boolean {
  return m.node !== null && !m.nodeGone;
}

/**
 * Whether `entry`'s machine is healthy by its health check and every signal its proof requires, as the world is:
 * what kintsugi must find when it asks. Node signals do not apply to a machine that is not a node (as kintsugi's
 * proof says); `boot_id_changed` holds when the Node reports another boot ID than the one the entry recorded before
 * its first repair command, and does not count for an entry that never ran one (nothing was repaired, and kintsugi
 * lets it succeed as CKE does).
 */
export function healthyByEverySignal(m: SimMachine, entry: RepairEntry | undefined, proof: SuccessProof | undefined, healthy: boolean): boolean {
  if (!healthy) return false;
  if (!proof) return true;
  const node = isNode(m);
  for (const signal of proof.requires) {
    if (signal === "node_ready" && node && !m.ready) return false;
    if (signal === "sabakan_healthy" && m.state !== "HEALTHY") return false;
    if (signal === "boot_id_changed" && node && entry?.evidence !== undefined) {
      const before = entry.evidence.bootIdBefore;
      if (before === null || before === bootIdOf(m)) return false;
    }
  }
  return true;
}

/** The control planes whose Node is not Ready or gone (etcd's members there are out of sync, as kintsugi reads them). */
export function planesDown(world: SimWorld): SimMachine[] {
  return world.machines.filter((m) => m.role === "control-plane" && (!m.ready || !isNode(m)));
}

/**
 * Whether etcd is good for repair (CKE's EtcdIsGoodForRepair, with a control plane's Node Ready standing for its
 * member in sync): a majority of the control planes Ready, and at least `control-plane-count` - 1. `out`: a control
 * plane about to be disrupted, counted as out.
 */
export function etcdGoodForRepair(world: SimWorld, controlPlaneCount: number, out: string | null = null): boolean {
  const planes = world.machines.filter((m) => m.role === "control-plane");
  if (planes.length === 0) return true;
  const down = new Set(planesDown(world).map((m) => m.address));
  if (out !== null) down.add(out);
  const ready = planes.length - down.size;
  return ready * 2 > planes.length && ready >= controlPlaneCount - 1;
}

/** kintsugi's own cordon of the machine's Node, for which entry (null: none). */
export function cordonedFor(m: SimMachine): number | null {
  const owner = m.annotations[CORDONED_BY_ANNOTATION];
  if (owner === undefined || !owner.startsWith("repair-entry-")) return null;
  const index = Number(owner.slice("repair-entry-".length));
  return Number.isSafeInteger(index) ? index : null;
}

/** Whether kintsugi has the machine's Node cordoned for `entry`. */
export function cordonedForEntry(m: SimMachine, entry: RepairEntry): boolean {
  return m.annotations[CORDONED_BY_ANNOTATION] === cordonOwner(entry.index);
}

/** The machine boots after a repair command kintsugi ran (its command made it unavailable until the boot ends). */
export function bootingAfterCommand(m: SimMachine, now: number): boolean {
  return m.bootedBy !== null && now < m.bootingUntil;
}

/**
 * CKE is rebooting the machine and it has been down for less than `wait-seconds-to-repair-rebooting`: the trigger
 * and the health checks leave it alone (`down`: how long its Node has been NotReady, or sabakan's time in its state).
 */
export function ckeRebootingWithin(m: SimMachine, downMs: number, waitSeconds: number, now: number): boolean {
  return (
    m.rebootUntil > now && m.annotations[REBOOT_ANNOTATION] === "true" && m.annotations[CORDONED_BY_ANNOTATION] === undefined && downMs < waitSeconds * 1000
  );
}

/**
 * Whether a command started for `entry` (by any replica: its stored marker) may still run on its machine, judged by its
 * timeout and the fence's margin (null: no fence, the runner judges no inherited command). A deleted entry may stay
 * in the queue while this holds, keeping its machine (entry-triage.ts, deletedButFenced).
 */
export function commandMayStillRun(entry: RepairEntry, marginSeconds: number | null, now: number): boolean {
  const marker = entry.command;
  if (marginSeconds === null || marker === undefined || marker.startedAt === null || !(marker.timeoutSeconds > 0)) return false;
  return now < marker.startedAt + (marker.timeoutSeconds + marginSeconds) * 1000;
}
