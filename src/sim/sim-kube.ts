import { CORDONED_BY_ANNOTATION, type ClusterNode, type EvictionOutcome, type MachineSource, type NodeOperator, type NodePod } from "../adapters/ports.js";
import type { MachineParams, MachineQueryVariables } from "../domain/sabakan/machine-params.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";
import type { SimRandom } from "./sim-random.js";
import type { SimMachine, SimWorld } from "./sim-world.js";

const APP_NAMESPACE = "app";

/** The NodeOperator port over the simulated world, with Kubernetes' cordon and eviction semantics. */
export class SimNodes implements NodeOperator {
  /** Called as a node is cordoned by kintsugi for `owner` (the invariants watch it). */
  onCordon: (m: SimMachine, owner: string) => void = () => {};
  /** The chance that a Kubernetes API call fails (a window of API errors); 0: none. */
  errorRate = 0;

  constructor(
    private readonly world: SimWorld,
    private readonly now: () => number = () => 0,
    /** Draws the API errors (only while `errorRate` is above 0). */
    private readonly random: SimRandom | null = null,
  ) {}

  /** Throws now and then while API errors are drawn: before the call took effect, or after (its answer lost). */
  private flaky(): "before" | "after" | null {
    if (this.errorRate <= 0 || this.random === null || !this.random.chance(this.errorRate)) return null;
    return this.random.chance(0.5) ? "before" : "after";
  }

  private error(call: string): Error {
    return new Error(`the Kubernetes API failed to answer ${call} (simulated)`);
  }

  async listNodes(): Promise<ClusterNode[]> {
    if (this.flaky()) throw this.error("list nodes");
    return this.world.clusterNodes();
  }

  async cordon(nodeName: string, owner: string): Promise<boolean> {
    const when = this.flaky();
    if (when === "before") throw this.error("cordon");
    const m = this.machine(nodeName);
    if (m.unschedulable && m.annotations[CORDONED_BY_ANNOTATION] === undefined) return false;
    this.onCordon(m, owner);
    m.unschedulable = true;
    m.annotations[CORDONED_BY_ANNOTATION] = owner;
    if (when === "after") throw this.error("cordon");
    return true;
  }

  async uncordon(nodeName: string, owner: string): Promise<boolean> {
    const when = this.flaky();
    if (when === "before") throw this.error("uncordon");
    const m = this.world.nodeNamed(nodeName);
    if (!m || m.nodeGone || m.annotations[CORDONED_BY_ANNOTATION] !== owner) return false;
    delete m.annotations[CORDONED_BY_ANNOTATION];
    // CKE's own cordon for a reboot in progress stays.
    if (m.rebootUntil === 0) m.unschedulable = false;
    if (when === "after") throw this.error("uncordon");
    return true;
  }

  async listPods(nodeName: string): Promise<NodePod[]> {
    if (this.flaky()) throw this.error("list pods");
    const m = this.machine(nodeName);
    const pods: NodePod[] = [];
    // An evicted pod held by a finalizer is still listed (Running, as kubectl shows it until it is gone).
    if (!m.evicted || this.now() < m.podStuckUntil)
      pods.push({ namespace: APP_NAMESPACE, name: `web-${m.serial}`, controllerKind: "ReplicaSet", phase: "Running", labels: {} });
    if (m.protectedJobUntil > 0) pods.push({ namespace: APP_NAMESPACE, name: `batch-${m.serial}`, controllerKind: "Job", phase: "Running", labels: {} });
    return pods;
  }

  async listNamespaces(): Promise<string[]> {
    if (this.flaky()) throw this.error("list namespaces");
    return [APP_NAMESPACE];
  }

  async evict(pod: NodePod, options: { readonly dryRun: boolean }): Promise<EvictionOutcome> {
    const when = this.flaky();
    if (when === "before") return { kind: "error", message: "the Kubernetes API failed to answer evict (simulated)" };
    const m = this.world.machines.find((x) => pod.name.endsWith(x.serial));
    if (!m) return { kind: "not-found" };
    if (m.pdbUntil > 0) return { kind: "refused", message: "Cannot evict pod as it would violate the pod's disruption budget." };
    if (!options.dryRun && pod.controllerKind === "ReplicaSet") m.evicted = true;
    if (when === "after") return { kind: "error", message: "the Kubernetes API failed to answer evict (simulated)" };
    return { kind: "evicted" };
  }

  async deletePod(pod: NodePod): Promise<boolean> {
    if (this.flaky() === "before") throw this.error("delete pod");
    const m = this.world.machines.find((x) => pod.name.endsWith(x.serial));
    if (!m) return false;
    if (pod.controllerKind === "ReplicaSet") m.evicted = true;
    return true;
  }

  async recordEvent(): Promise<void> {
    if (this.flaky()) throw this.error("record event");
  }

  watchNodes(): () => void {
    return () => {};
  }

  private machine(nodeName: string): SimMachine {
    const m = this.world.nodeNamed(nodeName);
    if (!m || m.nodeGone) throw new Error(`nodes "${nodeName}" not found`);
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
