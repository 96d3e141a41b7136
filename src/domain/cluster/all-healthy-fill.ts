import { allHealthyWorkerTarget, preferSpareNodes } from "./all-healthy.js";
import { hasIntolerableTaint } from "./node.js";
import { addControlPlane, addressOf, addWorker, removeWorker, type Plan } from "./plan.js";
import { countByRack, pickHighest } from "./score.js";
import type { ClusterMachine } from "./types.js";

/*
 * Node selection under all_healthy, after cybozu-go/cke sabakan/generator.go (selectControlPlane, chooseWorkerTmpl,
 * selectWorker, fill) at v1.32.2 and later.
 */

const isHealthy = (m: ClusterMachine) => m.state === "HEALTHY";
const takesRole = (role: string, m: ClusterMachine) => role === "" || m.role === role;

/**
 * The control plane CKE's selectControlPlane picks from `pool`: healthy, of the control plane's role, without a
 * Kubernetes taint a control plane must not carry (the spare-node taint is allowed); the spare Nodes among them when
 * there are any; then the highest selection score (rack spread, lifetime), ties by serial.
 */
export function pickAllHealthyControlPlane(plan: Plan, pool: readonly ClusterMachine[], spareKey: string | null): ClusterMachine | undefined {
  const tolerated = spareKey === null ? plan.template.control_plane_tolerations : [...plan.template.control_plane_tolerations, spareKey];
  const taintsOf = (m: ClusterMachine) => plan.nodeTaints.get(addressOf(m)) ?? [];
  const candidates = pool.filter((m) => isHealthy(m) && takesRole(plan.cpRole, m) && !hasIntolerableTaint(taintsOf(m), tolerated));
  const preferred = spareKey === null ? candidates : preferSpareNodes(candidates, (m) => taintsOf(m).some((t) => t.key === spareKey));
  return pickHighest(preferred, countByRack(plan.cps), plan.now);
}

/** Healthy machines that were no node this round, by serial. */
export function unusedHealthy(plan: Plan): ClusterMachine[] {
  return plan.machines.filter((m) => isHealthy(m) && !plan.used.has(m.serial));
}

/**
 * Worker selection under all_healthy: the template with the fewest workers per healthy machine of its role (control
 * planes of that role left out), then its first unused healthy machine by serial (CKE takes the first of an unordered
 * list). Machines only leave the unused set within a round, so each template's scan goes forward only.
 */
export class AllHealthyWorkerPicker {
  private readonly healthy: number[];
  private readonly cursors: number[];

  constructor(private readonly plan: Plan) {
    const healthy = plan.machines.filter(isHealthy);
    this.healthy = plan.workerTemplates.map((t) => healthy.filter((m) => takesRole(t.role, m)).length);
    this.cursors = plan.workerTemplates.map(() => 0);
  }

  /** CKE's fill target: every healthy machine of the templates' roles that is not a control plane. */
  target(): number {
    const { plan } = this;
    if (plan.workerTemplates.some((t) => t.role === "")) return allHealthyWorkerTarget(plan.machines.filter(isHealthy).length, plan.cps.length);
    return plan.workerTemplates.reduce((n, t, i) => n + this.available(i), 0);
  }

  /** The next machine to make a worker, or undefined when the chosen template has none left. */
  next(): ClusterMachine | undefined {
    const { plan } = this;
    const t = this.chooseTemplate();
    const role = plan.workerTemplates[t]?.role ?? "";
    let i = this.cursors[t] ?? 0;
    while (i < plan.machines.length) {
      const m = plan.machines[i] as ClusterMachine;
      if (isHealthy(m) && !plan.used.has(m.serial) && takesRole(role, m)) break;
      i++;
    }
    this.cursors[t] = i;
    return plan.machines[i];
  }

  private available(t: number): number {
    const tmpl = this.plan.workerTemplates[t];
    return (this.healthy[t] ?? 0) - (tmpl?.role === this.plan.cpRole ? this.plan.cps.length : 0);
  }

  private chooseTemplate(): number {
    let least = Infinity;
    let index = 0;
    this.plan.workerTemplates.forEach((_, t) => {
      const available = this.available(t);
      if (available <= 0) return;
      const ratio = (this.plan.workerCount[t] ?? 0) / available;
      if (ratio < least) {
        least = ratio;
        index = t;
      }
    });
    return index;
  }
}

/**
 * CKE's fill under all_healthy: control planes up to `control-plane-count` from the unused healthy machines, else by
 * promoting a worker; then workers until every healthy machine of the templates' roles is a node. Returns an error
 * or null.
 */
export function fillAllHealthy(plan: Plan, spareKey: string | null): string | null {
  const { controlPlaneCount } = plan.constraints;
  while (plan.cps.length < controlPlaneCount) {
    const why = `control-plane-count is ${controlPlaneCount}, the cluster has ${plan.cps.length}`;
    const m = pickAllHealthyControlPlane(plan, unusedHealthy(plan), spareKey);
    if (m) {
      plan.changes.push(`add control plane ${addressOf(m)} (serial ${m.serial}): ${why}${spareNote(plan, m, spareKey)}`);
      addControlPlane(plan, m);
      continue;
    }
    const promote = pickAllHealthyControlPlane(plan, plan.workers, spareKey);
    if (!promote) return `not enough healthy machines: ${why} and no unused healthy untainted machine or worker is left`;
    plan.changes.push(
      `promote worker ${addressOf(promote)} (serial ${promote.serial}) to control plane: ${why} and no unused healthy machine is left${spareNote(plan, promote, spareKey)}`,
    );
    removeWorker(plan, promote);
    addControlPlane(plan, promote);
  }
  const picker = new AllHealthyWorkerPicker(plan);
  const target = picker.target();
  while (plan.workers.length < target) {
    const m = picker.next();
    if (!m)
      return `not enough healthy machines: all_healthy wants ${target} workers, the cluster has ${plan.workers.length} and no unused healthy machine of a template's role is left`;
    plan.changes.push(
      `add worker ${addressOf(m)} (serial ${m.serial}): all_healthy makes every healthy machine a worker (${target} wanted, ${plan.workers.length} so far)`,
    );
    addWorker(plan, m);
  }
  return null;
}

function spareNote(plan: Plan, m: ClusterMachine, spareKey: string | null): string {
  const spare = spareKey !== null && (plan.nodeTaints.get(addressOf(m)) ?? []).some((t) => t.key === spareKey);
  return spare ? `; a spare node (${spareKey})` : "";
}
