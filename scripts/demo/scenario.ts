import { pickMachineToBreak, type ChaosMachine, type ChaosRules } from "./chaos.js";
import { frontendPodBack, POWER_CUT_RACK, type DataCenter, type DemoMachine } from "./data-center.js";
import { FailedRepairs } from "./failed-repair.js";
import { FlappingMachine } from "./flapping-machine.js";
import { ScenarioTimers } from "./scenario-timers.js";
import { deleteSucceededEntries } from "./operator-cleanup.js";
import { Incidents } from "./incidents.js";
import { cutPower, restorePower } from "./power-cut.js";
import type { FinishedRepair, QueueMirror } from "./queue-mirror.js";
import type { RepairChange } from "../../src/store/store-port.js";
import type { Story, Teller } from "./story.js";
import { DEMO_TIMINGS, type WallTimings } from "./timings.js";

/** What the scenario plays against: the data center, kintsugi's API, the story, the pace. */
export interface ScenarioDeps {
  readonly dc: DataCenter;
  readonly kintsugiUrl: string;
  readonly story: Story;
  readonly timings: WallTimings;
  /** maximum-unhealthy-machines-per-rack, as kintsugi is configured. */
  readonly rackLimit: number;
  readonly random: () => number;
  /** The demo's admin token: the admin's constraint change is made with it. */
  readonly adminToken: string;
}

/** At most this many machines are down at once outside the power-cut rack (incidents aside). */
const MAX_DOWN = 4;
/** Every other break, the fault is one a reboot does not clear: the repair's second step, a power cycle, does. */
const STUCK_EVERY = 2;
const T = DEMO_TIMINGS;

/**
 * The demo's world over time, on a cycle of {@link DEMO_TIMINGS.cycleSeconds}: machines break now and then (never
 * one kintsugi would skip as recently repaired, never one more than a rack may have down, never one of the rack kept
 * quiet for the next kubelet incident), the operator deletes succeeded entries, sabakan's state-setter reports
 * repaired machines healthy, and each cycle a status line and the incidents of the README, each at its time.
 */
export class Scenario {
  private readonly timers: ScenarioTimers;
  private readonly repairedAt = new Map<string, number>();
  private breaks = 0;
  /** The rack the chaos leaves alone: the one whose kubelets stop at the next kubelet incident. */
  private quietRack: number | null = 0;
  /** The control planes of the latest generated cluster, by address. */
  private controlPlanes: ReadonlySet<string> = new Set();
  private powerOff = false;
  private stopped = false;
  private succeeded = 0;
  private failed = 0;
  private succeededAtLastStatus = 0;
  private readonly rules: ChaosRules;
  private readonly byAddress: ReadonlyMap<string, DemoMachine>;
  readonly incidents: Incidents;
  readonly failedRepairs: FailedRepairs;
  private readonly flapping: FlappingMachine;

  constructor(
    private readonly deps: ScenarioDeps,
    private readonly queue: QueueMirror,
  ) {
    this.timers = new ScenarioTimers(() => deps.story.now(), deps.timings.scale);
    this.rules = { powerCutRack: POWER_CUT_RACK, rackLimit: deps.rackLimit, maxDown: MAX_DOWN, coolDownSeconds: T.coolDownSeconds };
    this.byAddress = new Map(deps.dc.machines.map((m) => [m.address, m]));
    this.incidents = new Incidents(
      {
        dc: deps.dc,
        timings: deps.timings,
        rules: this.rules,
        random: deps.random,
        tell: (teller, text) => this.tell(teller, text),
        after: (seconds, run) => this.timers.at(this.deps.story.now() + seconds, run),
        now: () => this.deps.story.now(),
        stopped: () => this.stopped,
        gql: (query, variables, token) => this.gql(query, variables, token),
        view: () => this.view(),
        reportBroken: (machine, story) => this.reportBroken(machine, story),
        quietRacks: () => this.quietRacks(),
      },
      deps.adminToken,
    );
    this.failedRepairs = new FailedRepairs(this.incidents.world);
    this.flapping = new FlappingMachine(this.incidents.world);
  }

  /** Starts the scenario's clock and its cycles. */
  start(): void {
    const { dc } = this.deps;
    this.deps.story.begin();
    this.timers.every(T.breakEverySeconds, () => this.breakOne());
    this.timers.every(T.cleanupEverySeconds, () => this.cleanUp());
    this.timers.every(T.stateSetterSeconds, () => this.reportRepaired());
    dc.hardware.watch(() => this.reportRepaired());
    this.beginCycle(0);
  }

  stop(): void {
    this.stopped = true;
    this.timers.stop();
  }

  /** kintsugi generated a cluster: which machines are its control planes now. */
  clusterGenerated(controlPlanes: readonly string[]): void {
    this.controlPlanes = new Set(controlPlanes);
  }

  /** kintsugi's committed entry changes (applied to the queue mirror first), and which repairs they finished. */
  committed(finished: readonly FinishedRepair[], changes: readonly RepairChange[]): void {
    this.incidents.committed(changes);
    this.failedRepairs.committed(changes);
    const now = this.deps.story.now();
    for (const repair of finished) {
      if (repair.succeeded) this.succeeded++;
      else this.failed++;
      const machine = this.byAddress.get(repair.address);
      if (!machine) continue;
      this.repairedAt.set(machine.serial, now);
      // Its ReplicaSet places a frontend pod on the repaired node again: the next drain has a pod to evict.
      if (repair.succeeded) frontendPodBack(this.deps.dc, machine.serial);
    }
    this.flapping.committed(finished, changes);
  }

  private tell(teller: Teller, text: string): void {
    this.deps.story.tell(teller, text);
  }

  private beginCycle(cycle: number): void {
    const start = cycle * T.cycleSeconds;
    if (cycle > 0) this.status(start);
    this.timers.at(start + T.powerCutAtSeconds, () => {
      this.powerOff = true;
      this.tell("power", cutPower(this.deps.dc, start + T.powerCutAtSeconds + T.powerOutageSeconds));
    });
    this.timers.at(start + T.powerCutAtSeconds + T.powerOutageSeconds, () => {
      this.tell("power", restorePower(this.deps.dc, start + T.cycleSeconds + T.powerCutAtSeconds));
      this.powerOff = false;
    });
    this.timers.at(start + T.flapAtSeconds, () => this.flapping.arm());
    this.timers.at(start + T.nodeNotReadyAtSeconds, () =>
      this.incidents.attempt(async () => {
        const happened = await this.incidents.nodeNotReady(this.quietRack);
        if (happened) this.quietRack = null;
        return happened;
      }),
    );
    // The kubelet incident's rack is kept quiet until it happens, a minute at most.
    this.timers.at(start + T.nodeNotReadyAtSeconds + 60, () => (this.quietRack = null));
    // The rack of the failed repair is kept quiet from a while before it until its kubelets stop, the next cycle.
    this.timers.at(start + T.repairFailsAtSeconds - T.failureRackQuietForSeconds, () => (this.quietRack = this.failedRepairs.rackToFail()));
    this.timers.at(start + T.repairFailsAtSeconds, () => {
      this.quietRack ??= this.failedRepairs.rackToFail();
      this.incidents.attempt(() => this.quietRack !== null && this.failedRepairs.strike(this.quietRack));
    });
    this.timers.at(start + T.drainRefusedAtSeconds, () => this.incidents.attempt(() => this.incidents.drainRefused()));
    this.timers.at(start + T.controlPlanesFailAtSeconds, () => this.incidents.attempt(() => this.incidents.controlPlanesFail()));
    this.timers.at(start + T.constraintChangeAtSeconds, () => void this.incidents.changeConstraint(cycle));
    this.timers.at(start + T.cycleSeconds, () => this.beginCycle(cycle + 1));
  }

  private status(at: number): void {
    const recent = this.succeeded - this.succeededAtLastStatus;
    this.succeededAtLastStatus = this.succeeded;
    const inQueue = this.queue.size;
    this.tell(
      "status",
      `${Math.round(at / 60)} minutes in: ${this.succeeded} repairs succeeded (${recent} in the last ${T.cycleSeconds / 60} minutes), ` +
        `${this.failed} failed; ${inQueue} entries in the queue; rack ${POWER_CUT_RACK} ${this.powerOff ? "without power" : "powered"}`,
    );
  }

  private view(): ChaosMachine[] {
    return this.deps.dc.machines.map((m) => ({
      ...m,
      state: this.deps.dc.sabakan.machine(m.serial)?.state ?? "UNKNOWN",
      works: this.deps.dc.hardware.works(m.address),
      inQueue: this.queue.has(m.address),
      lingers: this.queue.lingers(m.address),
      repairedAt: this.repairedAt.get(m.serial) ?? null,
      controlPlane: this.controlPlanes.has(m.address),
    }));
  }

  private breakOne(): void {
    const victim = pickMachineToBreak(this.view(), this.deps.story.now(), this.rules, this.deps.random, new Set(), this.quietRacks());
    if (!victim) return;
    const stuck = ++this.breaks % STUCK_EVERY === 0;
    void this.reportBroken(victim, `${victim.serial} (${victim.address}) broke: UNHEALTHY${stuck ? ", a fault a reboot does not clear" : ""}`, stuck);
  }

  /** The racks kept quiet for an incident: the rack whose kubelets stop next. */
  private quietRacks(): ReadonlySet<number> {
    return new Set(this.quietRack === null ? [] : [this.quietRack]);
  }

  /**
   * A machine breaks, and sabakan's state-setter reports it through kintsugi's gateway (setMachineState), as a
   * state-setter controller can: kintsugi polls at once. If the report fails, the machine works after all.
   */
  private async reportBroken(machine: DemoMachine, story: string, stuck = false): Promise<void> {
    this.deps.dc.hardware.fail(machine.address, stuck);
    this.tell("chaos", story);
    try {
      await this.gql(`mutation ($s: ID!) { setMachineState(serial: $s, state: UNHEALTHY) { state } }`, { s: machine.serial });
    } catch (err) {
      // While the demo stops, kintsugi may close before the report arrives: nothing to tell then.
      if (this.stopped) return;
      this.deps.dc.hardware.fix(machine.address);
      this.tell("sabakan", `could not report ${machine.serial} UNHEALTHY (${(err as Error).message}): it works after all`);
    }
  }

  /** sabakan's state-setter: a machine kintsugi's repair command made work again is HEALTHY in sabakan. */
  private reportRepaired(): void {
    const { sabakan, hardware } = this.deps.dc;
    let any = false;
    for (const m of this.deps.dc.machines) {
      if (sabakan.machine(m.serial)?.state === "UNHEALTHY" && hardware.works(m.address)) {
        sabakan.setState(m.serial, "HEALTHY");
        any = true;
      }
    }
    this.incidents.kubeletsBack();
    if (any) this.flapping.changed();
  }

  /** The operator's part: succeeded entries are deleted now and then, so that their machines may be repaired again. */
  private cleanUp(): void {
    deleteSucceededEntries(
      (query, variables) => this.gql(query, variables),
      (teller, text) => this.tell(teller, text),
    ).catch((err: unknown) => {
      if (!this.stopped) this.tell("operator", `could not delete succeeded entries: ${(err as Error).message}`);
    });
  }

  private async gql(query: string, variables: Record<string, unknown> = {}, token?: string): Promise<unknown> {
    const headers = { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) };
    const res = await fetch(`${this.deps.kintsugiUrl}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
    const body = (await res.json()) as { data?: unknown; errors?: Array<{ message: string }> };
    if (body.errors) throw new Error(body.errors.map((e) => e.message).join("; "));
    return body.data;
  }
}
