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
  /** How many of the next uncordons the API refuses (an aimed fault); and how many it refused so far. */
  refuseUncordons = 0;
  uncordonsRefused = 0;

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
    if (this.refuseUncordons > 0) {
      this.refuseUncordons--;
      this.uncordonsRefused++;
      throw this.error("uncordon");
    }
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

/** One field of sabakan's MachineParams as a test of a machine (null: the field sets nothing). */
type FieldTest = (m: SimMachine) => boolean;

function fieldTests(p: MachineParams | null, role: (m: SimMachine) => string): FieldTest[] {
  const tests: FieldTest[] = [];
  if (p?.states?.length) {
    const states = new Set<string>(p.states);
    tests.push((m) => states.has(m.state));
  }
  if (p?.roles?.length) {
    const roles = new Set(p.roles);
    tests.push((m) => roles.has(role(m)));
  }
  if (p?.racks?.length) {
    const racks = new Set(p.racks);
    tests.push((m) => racks.has(m.rack));
  }
  return tests;
}

/**
 * sabakan's rule (cybozu-go/sabakan gql/match.go MatchMachine): a machine must match every field `having` sets and
 * no field `notHaving` sets; an absent or empty list sets nothing (states, roles and racks; labels are not simulated).
 * Built once per search, so a search of 10,000 machines makes no closure per machine.
 */
function matcher(variables: MachineQueryVariables, role: (m: SimMachine) => string): (m: SimMachine) => boolean {
  const having = fieldTests(variables.having, role);
  const notHaving = fieldTests(variables.notHaving, role);
  return (m) => having.every((t) => t(m)) && !notHaving.some((t) => t(m));
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
    const matches = matcher(variables, (m) => (m.role === "control-plane" ? "cs" : "ss"));
    const answer = this.world.machines.filter(matches).map((m) => this.world.sabakanMachine(m, now));
    this.lastAnswer = answer;
    return answer;
  }
}
