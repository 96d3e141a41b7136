import type { RepairChange } from "../../src/store/store-port.js";
import { pickMachineToBreak, type ChaosMachine, type ChaosRules } from "./chaos.js";
import { frontendPodBack, frontendPodOf, type DataCenter, type DemoMachine } from "./data-center.js";
import type { Teller } from "./story.js";
import { DEMO_TIMINGS, type WallTimings } from "./timings.js";

/** What the incidents act on: the scenario's world and clock. */
export interface IncidentWorld {
  readonly dc: DataCenter;
  readonly timings: WallTimings;
  readonly rules: ChaosRules;
  readonly random: () => number;
  tell(teller: Teller, text: string): void;
  /** Runs `run` after `seconds` of the scenario's clock. */
  after(seconds: number, run: () => void): void;
  /** The scenario's clock, in seconds. */
  now(): number;
  /** Whether the demo is stopping: what fails then is not told. */
  stopped(): boolean;
  /** A GraphQL request to kintsugi, anonymous (an operator) or with a token. */
  gql(query: string, variables?: Record<string, unknown>, token?: string): Promise<unknown>;
  view(): ChaosMachine[];
  /** The machine breaks and sabakan's state-setter reports it UNHEALTHY through kintsugi. */
  reportBroken(machine: DemoMachine, story: string): Promise<void>;
  /** The racks kept quiet for an incident: nothing else breaks there. */
  quietRacks(): ReadonlySet<number>;
}

/** The constraint the demo's admin changes, and the two values it goes between. */
export const CHANGED_CONSTRAINT = "maximum-repair-queue-entries";
export const CONSTRAINT_VALUES = [12, 10] as const;

/** How often, and how many times, an incident that cannot happen yet is tried again (scenario seconds). */
const RETRY_SECONDS = 5;
const RETRIES = 24;

const nodeOf = (serial: string) => `node-${serial}`;
const podOf = frontendPodOf;
const isDown = (m: ChaosMachine) => m.state !== "HEALTHY" || !m.works;

/**
 * The incidents of each cycle beside the machines that simply break: a node whose kubelet stops (kintsugi's health
 * check; two in one rack, so that pacing holds one back), a drain a disruption budget refuses (back-off, then the operator's reset), two control planes at once (one
 * at a time), an admin's constraint change, and the operator's answer to a machine kintsugi escalated.
 */
export class Incidents {
  private readonly notReady = new Set<string>();
  private readonly refused = new Map<string, DemoMachine>();
  private readonly lifting = new Set<string>();
  private readonly replacing = new Set<string>();

  constructor(
    readonly world: IncidentWorld,
    private readonly adminToken: string,
  ) {}

  /**
   * Runs an incident now, or when it cannot happen yet (no machine may break: too many are down), again every
   * {@link RETRY_SECONDS} until it does or {@link RETRIES} tries have passed.
   */
  attempt(incident: () => boolean | Promise<boolean>, tries = RETRIES): void {
    void Promise.resolve(incident())
      .catch(() => false)
      .then((happened) => {
        if (!happened && tries > 1) this.world.after(RETRY_SECONDS, () => this.attempt(incident, tries - 1));
      });
  }

  /**
   * The machine an incident strikes: as the chaos picks one, but however many are down already (the chaos keeps
   * that number low; an incident is the cycle's event, and must not wait for the queue to empty).
   */
  private victim(): ChaosMachine | null {
    const { world } = this;
    return pickMachineToBreak(world.view(), world.now(), { ...world.rules, maxDown: Number.POSITIVE_INFINITY }, world.random, new Set(), world.quietRacks());
  }

  /**
   * Kubelets stop: the nodes are NotReady, the machines do not work, and sabakan still says HEALTHY. In `rack` (the
   * rack kept quiet for it, whose last repair failed), or else in the quiet rack with the smallest allowance.
   */
  async nodeNotReady(rack: number | null = null): Promise<boolean> {
    const { world } = this;
    // Nodes of one rack with nothing else down there, one more than the rack's pacing allowance (it doubles with each
    // proven repair there, and returns to one after a failure): their entries come from the same health-check round,
    // and the last waits for pacing.
    const data = (await world.gql("{ repairPacing { domains { domain value allowance } } }")) as {
      repairPacing: { domains: Array<{ domain: string; value: string; allowance: number }> };
    };
    const allowance = (rack: number) => data.repairPacing.domains.find((d) => d.domain === "RACK" && d.value === String(rack))?.allowance ?? 1;
    const machines = world.view();
    const quiet = new Set(machines.map((m) => m.rack));
    for (const m of machines) if (m.state !== "HEALTHY" || !m.works || m.inQueue) quiet.delete(m.rack);
    const eligible = (rack: number) =>
      machines.filter(
        (m) =>
          m.rack === rack &&
          m.rack !== world.rules.powerCutRack &&
          !m.controlPlane &&
          (m.repairedAt === null || world.now() - m.repairedAt >= world.rules.coolDownSeconds),
      );
    const candidates = [...quiet].filter((r) => (rack === null || r === rack) && eligible(r).length > allowance(r));
    const chosen = candidates.sort((a, b) => allowance(a) - allowance(b))[0];
    if (chosen === undefined) return false;
    const victims = eligible(chosen).slice(0, allowance(chosen) + 1);
    for (const victim of victims) {
      world.dc.hardware.fail(victim.address);
      world.dc.kube.setNodeCondition(nodeOf(victim.serial), "Ready", "False", new Date(world.dc.now()));
      this.notReady.add(victim.serial);
    }
    world.tell(
      "chaos",
      `the kubelets of ${victims.map((v) => nodeOf(v.serial)).join(", ")} (rack ${chosen}, whose pacing allows ${allowance(chosen)}) stopped: the nodes are NotReady while sabakan still sees their machines HEALTHY`,
    );
    return true;
  }

  /** Kubelets of repaired machines report Ready again (called with sabakan's state-setter). */
  kubeletsBack(): void {
    for (const serial of this.notReady) {
      const machine = this.world.dc.machines.find((m) => m.serial === serial);
      if (!machine || !this.world.dc.hardware.works(machine.address)) continue;
      this.world.dc.kube.setNodeCondition(nodeOf(serial), "Ready", "True", new Date(this.world.dc.now()));
      this.notReady.delete(serial);
    }
  }

  /** A machine breaks whose pod a disruption budget keeps from being evicted: kintsugi's drain backs off. */
  drainRefused(): boolean {
    const { world } = this;
    const victim = this.victim();
    if (!victim) return false;
    // Its pod may have been evicted by an earlier repair: the budget protects the one its ReplicaSet placed since.
    frontendPodBack(world.dc, victim.serial);
    world.dc.kube.refuseEviction("web", podOf(victim.serial));
    this.refused.set(victim.address, victim);
    void world.reportBroken(
      victim,
      `${victim.serial} (${victim.address}) broke: UNHEALTHY; a disruption budget keeps its pod web/${podOf(victim.serial)} from being evicted`,
    );
    return true;
  }

  /**
   * kintsugi's committed changes: once a drain of a refused machine backs off, the operator lifts the budget after a
   * while and resets the back-off (kintsugi repair-queue reset-backoff), so the drain is retried at once.
   */
  committed(changes: readonly RepairChange[]): void {
    for (const { entry, previous } of changes) {
      const machine = this.refused.get(entry.address);
      if (!machine || this.lifting.has(machine.address) || entry.drainBackoffCount <= (previous?.drainBackoffCount ?? 0)) continue;
      this.lifting.add(machine.address);
      this.world.after(DEMO_TIMINGS.budgetLiftedAfterSeconds, () => void this.liftBudget(machine));
    }
  }

  private async liftBudget(machine: DemoMachine): Promise<void> {
    const { world } = this;
    world.dc.kube.allowEviction("web", podOf(machine.serial));
    this.refused.delete(machine.address);
    this.lifting.delete(machine.address);
    try {
      const data = (await world.gql("mutation { resetRepairBackoff { index } }")) as { resetRepairBackoff: Array<{ index: number }> };
      const n = data.resetRepairBackoff.length;
      world.tell(
        "operator",
        `lifted the disruption budget of web/${podOf(machine.serial)} and reset the drain back-off of ${n} entr${n === 1 ? "y" : "ies"} (kintsugi repair-queue reset-backoff)`,
      );
    } catch (err) {
      if (world.stopped()) return;
      world.tell("operator", `lifted the disruption budget of web/${podOf(machine.serial)}; resetting the back-off failed: ${(err as Error).message}`);
    }
  }

  /** Two control planes, in two racks (not the one kept quiet), fail together: kintsugi repairs one at a time. */
  controlPlanesFail(): boolean {
    const { world } = this;
    const machines = world.view();
    const down = new Map<number, number>();
    for (const m of machines) if (isDown(m)) down.set(m.rack, (down.get(m.rack) ?? 0) + 1);
    const victims: ChaosMachine[] = [];
    for (const m of machines) {
      const fits =
        m.controlPlane &&
        !isDown(m) &&
        !m.inQueue &&
        m.rack !== world.rules.powerCutRack &&
        !world.quietRacks().has(m.rack) &&
        (down.get(m.rack) ?? 0) < world.rules.rackLimit;
      if (fits && !victims.some((v) => v.rack === m.rack)) victims.push(m);
    }
    if (victims.length < 2) return false;
    const [a, b] = victims as [ChaosMachine, ChaosMachine];
    world.tell("chaos", `two control planes fail together: ${a.serial} (${a.address}) and ${b.serial} (${b.address})`);
    for (const m of [a, b]) void world.reportBroken(m, `${m.serial} (${m.address}), a control plane, broke: UNHEALTHY`);
    return true;
  }

  /** The admin changes a constraint through the API with the demo's admin token (anonymous clients are operators). */
  async changeConstraint(cycle: number): Promise<void> {
    const [from, to] = cycle % 2 === 0 ? CONSTRAINT_VALUES : ([...CONSTRAINT_VALUES].reverse() as [number, number]);
    try {
      await this.world.gql(
        `mutation ($n: String!, $v: Int!) { setConstraint(name: $n, value: $v) { maximumRepairQueueEntries } }`,
        { n: CHANGED_CONSTRAINT, v: to },
        this.adminToken,
      );
      this.world.tell("admin", `set ${CHANGED_CONSTRAINT} to ${to} (was ${from}) with the admin token: kintsugi constraints set ${CHANGED_CONSTRAINT} ${to}`);
    } catch (err) {
      if (this.world.stopped()) return;
      this.world.tell("admin", `could not set ${CHANGED_CONSTRAINT}: ${(err as Error).message}`);
    }
  }

  /** kintsugi escalated a repeat offender to a hold: the operator replaces its faulty part, then releases the hold. */
  escalated(serial: string): void {
    const machine = this.world.dc.machines.find((m) => m.serial === serial);
    if (!machine || this.replacing.has(serial)) return;
    this.replacing.add(serial);
    this.world.after(DEMO_TIMINGS.partReplacedAfterSeconds, () => {
      // The part is replaced and sabakan's state-setter sees the machine healthy before the hold goes: released
      // earlier, the next poll would repair it once more.
      this.world.dc.hardware.fix(machine.address);
      this.world.dc.sabakan.setState(serial, "HEALTHY");
      this.world
        .gql(`mutation ($a: IPAddress!) { releaseMachine(address: $a) { address } }`, { a: machine.address })
        .then(() =>
          this.world.tell("operator", `replaced ${serial}'s faulty part and released the hold kintsugi set on it (kintsugi machine release ${serial})`),
        )
        .catch(
          (err: unknown) =>
            this.world.stopped() || this.world.tell("operator", `replaced ${serial}'s faulty part; releasing its hold failed: ${(err as Error).message}`),
        )
        .finally(() => this.replacing.delete(serial));
    });
  }
}
