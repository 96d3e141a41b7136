import { CORDONED_BY_ANNOTATION, type ClusterNode, type EvictionOutcome, type MachineSource, type NodeOperator, type NodePod } from "../adapters/ports.js";
import type { MachineParams, MachineQueryVariables } from "../domain/sabakan/machine-params.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";
import type { SimMachine, SimWorld } from "./sim-world.js";

const APP_NAMESPACE = "app";

/** The NodeOperator port over the simulated world, with Kubernetes' cordon and eviction semantics. */
export class SimNodes implements NodeOperator {
  /** Called as a node is cordoned by kintsugi (the invariants watch it). */
  onCordon: (m: SimMachine) => void = () => {};

  constructor(private readonly world: SimWorld) {}

  async listNodes(): Promise<ClusterNode[]> {
    return this.world.clusterNodes();
  }

  async cordon(nodeName: string, owner: string): Promise<boolean> {
    const m = this.machine(nodeName);
    if (m.unschedulable && m.annotations[CORDONED_BY_ANNOTATION] === undefined) return false;
    this.onCordon(m);
    m.unschedulable = true;
    m.annotations[CORDONED_BY_ANNOTATION] = owner;
    return true;
  }

  async uncordon(nodeName: string, owner: string): Promise<boolean> {
    const m = this.world.nodeNamed(nodeName);
    if (!m || m.annotations[CORDONED_BY_ANNOTATION] !== owner) return false;
    delete m.annotations[CORDONED_BY_ANNOTATION];
    // CKE's own cordon for a reboot in progress stays.
    if (m.rebootUntil === 0) m.unschedulable = false;
    return true;
  }

  async listPods(nodeName: string): Promise<NodePod[]> {
    const m = this.machine(nodeName);
    const pods: NodePod[] = [];
    if (!m.evicted) pods.push({ namespace: APP_NAMESPACE, name: `web-${m.serial}`, controllerKind: "ReplicaSet", phase: "Running", labels: {} });
    if (m.protectedJobUntil > 0) pods.push({ namespace: APP_NAMESPACE, name: `batch-${m.serial}`, controllerKind: "Job", phase: "Running", labels: {} });
    return pods;
  }

  async listNamespaces(): Promise<string[]> {
    return [APP_NAMESPACE];
  }

  async evict(pod: NodePod, options: { readonly dryRun: boolean }): Promise<EvictionOutcome> {
    const m = this.world.machines.find((x) => pod.name.endsWith(x.serial));
    if (!m) return { kind: "not-found" };
    if (m.pdbUntil > 0) return { kind: "refused", message: "Cannot evict pod as it would violate the pod's disruption budget." };
    if (!options.dryRun && pod.controllerKind === "ReplicaSet") m.evicted = true;
    return { kind: "evicted" };
  }

  async deletePod(pod: NodePod): Promise<boolean> {
    const m = this.world.machines.find((x) => pod.name.endsWith(x.serial));
    if (!m) return false;
    if (pod.controllerKind === "ReplicaSet") m.evicted = true;
    return true;
  }

  async recordEvent(): Promise<void> {}

  watchNodes(): () => void {
    return () => {};
  }

  private machine(nodeName: string): SimMachine {
    const m = this.world.nodeNamed(nodeName);
    if (!m) throw new Error(`nodes "${nodeName}" not found`);
    return m;
  }
}

/**
 * sabakan's rule (cybozu-go/sabakan gql/match.go MatchMachine): a machine must match every field `having` sets and
 * no field `notHaving` sets; an absent or empty list sets nothing.
 */
function matches(m: SabakanMachine, having: MachineParams | null, notHaving: MachineParams | null): boolean {
  const fields = (p: MachineParams | null) =>
    [
      p?.states?.length ? p.states.includes(m.state) : null,
      p?.roles?.length ? p.roles.includes(m.role) : null,
      p?.racks?.length ? p.racks.includes(m.rack) : null,
    ].filter((t): t is boolean => t !== null);
  return fields(having).every(Boolean) && !fields(notHaving).some(Boolean);
}

/** sabakan's searchMachines over the simulated world (states, roles and racks; labels are not simulated). */
export class SimSabakan implements MachineSource {
  /** The last answer to the sabakan trigger's query (the intake invariants read it). */
  lastAnswer: SabakanMachine[] = [];
  down = false;

  constructor(
    private readonly world: SimWorld,
    private readonly now: () => number,
  ) {}

  async searchMachines(variables: MachineQueryVariables): Promise<SabakanMachine[]> {
    if (this.down) throw new Error("sabakan is unreachable (simulated outage)");
    const now = this.now();
    const answer = this.world.machines.map((m) => this.world.sabakanMachine(m, now)).filter((m) => matches(m, variables.having, variables.notHaving));
    this.lastAnswer = answer;
    return answer;
  }
}
