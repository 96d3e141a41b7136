import type { MachineSource, NodeOperator } from "../adapters/ports.js";
import type { GenerationRound } from "../domain/cluster/generation-record.js";
import type { WorkerSelection } from "../domain/cluster/worker-selection.js";
import { DEFAULT_CLUSTER_VARIABLES, type MachineQueryVariables } from "../domain/sabakan/machine-params.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";
import { REBOOT_ANNOTATION } from "../domain/shared/node-reboot.js";
import { ClusterGenerator } from "../runner/cluster-generator.js";
import type { KintsugiStore } from "../store/store-port.js";
import { SILENT_LOG } from "../support/log.js";
import type { SimFault } from "./sim-faults.js";
import { GenerationInvariants } from "./sim-generation-invariants.js";
import type { SimRandom } from "./sim-random.js";
import type { SimWorld } from "./sim-world.js";

/**
 * The simulator's cluster template: control planes of sabakan role "cs" (the world's control-plane machines, so the
 * generated control planes are among the Nodes labelled as such), workers of any role.
 */
export const SIM_CLUSTER_TEMPLATE = `name: sim
nodes:
- user: cybozu
  control_plane: true
  labels: { "cke.cybozu.com/role": cs }
- user: cybozu
  control_plane: false
service_subnet: 10.68.0.0/16
`;

/** sabakan.worker_selection of a simulated run, or "drawn": each seed draws one. */
export type SimGenerationPolicy = WorkerSelection | "drawn";

const MIN = 60_000;
const HOUR = 3_600_000;

/** The round's own view of sabakan: what its search answered (null: it failed or did not search). */
class RecordingSource implements MachineSource {
  answer: SabakanMachine[] | null = null;
  constructor(private readonly inner: MachineSource) {}
  async searchMachines(variables: MachineQueryVariables): Promise<SabakanMachine[]> {
    this.answer = null;
    this.answer = await this.inner.searchMachines(variables);
    return this.answer;
  }
}

/**
 * Cluster generation in the simulated data center: the real generator (the runner's ClusterGenerator over the real
 * store) reads the simulated sabakan and Nodes on the virtual clock, a round a minute and when a waiting control
 * plane's grace ends; operators switch it off and on, change control-plane-count and retire machines (drawn from a
 * stream of its own, so the rest of a seed's history is the same as without generation). Each round is checked by
 * {@link GenerationInvariants}.
 */
export class SimGeneration {
  readonly invariants: GenerationInvariants;
  readonly policy: WorkerSelection;
  private generator: ClusterGenerator;
  private readonly source: RecordingSource;
  private nextRound = 0;
  /** When an operator first switches generation on; null once on. */
  private enableAt: number | null = null;
  rounds = 0;
  /** Where operators' actions are logged (the simulation's fault log, for the report). */
  log: SimFault[] = [];

  constructor(
    private readonly world: SimWorld,
    private readonly store: KintsugiStore,
    sabakan: MachineSource,
    private readonly nodes: NodeOperator,
    private readonly now: () => number,
    private readonly random: SimRandom,
    policy: SimGenerationPolicy,
  ) {
    this.policy = policy === "drawn" ? random.pick<WorkerSelection>(["weighted", "all_healthy"]) : policy;
    this.source = new RecordingSource(sabakan);
    this.invariants = new GenerationInvariants(this.policy);
    this.generator = this.build();
    world.rebootsUnreachable = true;
  }

  private build(): ClusterGenerator {
    return new ClusterGenerator({
      generations: this.store.generations,
      settings: this.store.settings,
      machines: this.source,
      nodes: this.nodes,
      now: this.now,
      log: SILENT_LOG,
      policy: { workerSelection: this.policy, spareNodeTaintKey: null },
      recheckTimer: false,
    });
  }

  private planes(): number {
    return this.world.controlPlaneAddresses().length;
  }

  /** The template, the variables and the constraints an operator sets first (drawn), then generation on. */
  async start(now: number): Promise<void> {
    const r = this.random;
    const { settings } = this.store;
    await settings.setClusterTemplate({ text: SIM_CLUSTER_TEMPLATE, setAt: now });
    // With RETIRED machines listed, all_healthy's minimum-workers-rate rule decides when a retired worker goes.
    const variables = r.chance(0.5) ? DEFAULT_CLUSTER_VARIABLES : { having: null, notHaving: { roles: ["boot"] } };
    await settings.setClusterVariables(variables);
    const minimumWorkers = r.int(0, 30);
    await settings.setConstraints({
      controlPlaneCount: r.pick([1, 3].filter((n) => n <= this.planes())),
      minimumWorkers,
      maximumWorkers: r.pick([0, 0, minimumWorkers + r.int(0, 40)]),
      minimumWorkersRate: r.pick([0, 50, 80]),
      waitSecondsToReplaceControlPlane: r.pick([0, 300, 1800]),
    });
    // A few machines are still being installed: none may become a node before sabakan calls it HEALTHY.
    for (const m of this.world.machines) if (m.role === "worker" && r.chance(0.05)) m.uninitializedUntil = now + r.int(1, 150) * MIN;
    // Switched on up to 30 minutes into the faults: the first configuration is made from a fleet with broken machines.
    this.enableAt = now + r.int(0, 30) * MIN;
    this.note(
      now,
      "generation-setup",
      `${this.policy}, on at +${(this.enableAt - now) / MIN} min, ${JSON.stringify(variables)}, ${JSON.stringify(settings.constraints())}`,
    );
  }

  /** A leader failover: a new generator from the stored state. */
  async restart(): Promise<void> {
    await this.generator.stop();
    this.generator = this.build();
  }

  stop(): Promise<void> {
    return this.generator.stop();
  }

  /** Operators' actions of one step of `stepMs` ending at `now` (while faults are drawn). */
  async step(now: number, stepMs: number): Promise<void> {
    const r = this.random;
    const hours = stepMs / HOUR;
    const { settings } = this.store;
    const enabled = settings.clusterGenerationEnabled();
    if (this.enableAt !== null) {
      if (now < this.enableAt) return;
      this.enableAt = null;
      await settings.setClusterGenerationEnabled(true);
      this.note(now, "generation-enable", "cluster generation enabled for the first time");
    } else if (enabled && r.chance(1 * hours)) {
      await settings.setClusterGenerationEnabled(false);
      this.note(now, "generation-disable", "cluster generation disabled");
    } else if (!enabled && r.chance(3 * hours)) {
      await settings.setClusterGenerationEnabled(true);
      this.note(now, "generation-enable", "cluster generation enabled");
    }
    if (r.chance(0.5 * hours)) {
      // One more than the control-plane machines now and then: the rounds must then fail and change nothing.
      const count = r.int(1, this.planes() + 1);
      await settings.setConstraints({ controlPlaneCount: count });
      this.note(now, "generation-control-planes", `control-plane-count ${count}`);
    }
    // More of the world's sabakan states than the repairs' faults draw: the rules under test read nothing else.
    const per100 = hours * (this.world.machines.length / 100);
    if (r.chance(0.4 * hours)) {
      const rack = r.pick(this.world.machines).rack;
      const until = now + r.int(10, 60) * MIN;
      for (const x of this.world.machines) if (x.rack === rack) x.rackPowerUntil = Math.max(x.rackPowerUntil, until);
      this.note(now, "rack-power-loss", `rack ${rack} until +${(until - now) / MIN} min (generation's draw)`);
    }
    if (r.chance(1 * hours)) {
      // CKE's reboot queue reboots a control plane in force (sabakan calls it UNREACHABLE meanwhile): never replaced.
      const planes = new Set(this.store.generations.controlPlaneAddresses());
      const m = this.world.machines.find((x) => planes.has(x.address) && x.node !== null && !x.unschedulable && r.chance(0.5));
      if (m) {
        m.rebootSince = now;
        m.rebootUntil = now + r.int(5, 40) * MIN;
        m.annotations[REBOOT_ANNOTATION] = "true";
        m.unschedulable = true;
        this.note(now, "cke-reboot", `a control plane, until +${(m.rebootUntil - now) / MIN} min (generation's draw)`, m.address);
      }
    }
    if (r.chance(4 * per100)) {
      const m = r.pick(this.world.machines);
      m.sabakanFlapUntil = Math.max(m.sabakanFlapUntil, now + r.int(1, 30) * MIN);
      this.note(now, "sabakan-flap", `UNREACHABLE in sabakan until +${(m.sabakanFlapUntil - now) / MIN} min (generation's draw)`, m.address);
    }
    if (r.chance(2 * per100)) {
      // A third of them a control plane in force: the quorum rule for control planes sabakan no longer lists.
      const planes = new Set(this.store.generations.controlPlaneAddresses());
      const m = r.pick(r.chance(0.3) && planes.size > 0 ? this.world.machines.filter((x) => planes.has(x.address)) : this.world.machines);
      if (m.retiringAt !== 0) return;
      m.retiringAt = now;
      m.retiredAt = now + r.int(5, 30) * MIN;
      this.note(now, "machine-retires", `RETIRING, RETIRED from +${(m.retiredAt - now) / MIN} min`, m.address);
    }
  }

  /** Faults stop: operators turn generation back on. */
  async faultsStop(): Promise<void> {
    await this.store.settings.setClusterGenerationEnabled(true);
  }

  /** Runs a round when one is due (every minute, or a waiting control plane's grace ended) and checks it. */
  async maybeRound(now: number): Promise<void> {
    const due = this.generator.recheckDueAt();
    if (now < this.nextRound && (due === null || now < due)) return;
    this.nextRound = now + MIN;
    const { store } = this;
    const before = { current: store.generations.current(), enabled: store.settings.clusterGenerationEnabled(), constraints: store.settings.constraints() };
    const rebooting = new Set(this.world.machines.filter((m) => m.annotations[REBOOT_ANNOTATION] === "true").map((m) => m.address));
    this.source.answer = null;
    this.invariants.roundStarts();
    const result: GenerationRound | null = await this.generator.tick();
    this.rounds++;
    this.invariants.afterRound({
      now,
      ...before,
      rebooting,
      answer: this.source.answer,
      result,
      after: store.generations.current(),
      stored: store.generations.last(1_000_000),
    });
  }

  private note(at: number, kind: string, detail: string, address: string | null = null): void {
    this.log.push({ at, kind, address, detail });
  }
}
