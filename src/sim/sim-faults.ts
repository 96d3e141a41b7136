import { CORDONED_BY_ANNOTATION } from "../adapters/ports.js";
import { isFinished } from "../domain/queue/repair-entry.js";
import { REBOOT_ANNOTATION } from "../domain/shared/node-reboot.js";
import type { KintsugiStore } from "../store/store-port.js";
import type { SimRandom } from "./sim-random.js";
import type { SimSabakan } from "./sim-kube.js";
import type { Fix, SimMachine, SimWorld } from "./sim-world.js";

/** One fault or operator action, as the violation report lists them. */
export interface SimFault {
  readonly at: number;
  readonly kind: string;
  /** The machine it touched; null for the whole data center. */
  readonly address: string | null;
  readonly detail: string;
}

/** Which kinds of fault are drawn (the regression seeds and the sweep switch some off). */
export interface FaultMix {
  /** Events per hour per 100 machines, by kind; a kind left out is never drawn. */
  readonly rates: Readonly<Record<string, number>>;
}

export const ALL_FAULTS: FaultMix = {
  rates: {
    "machine-dies": 1.5,
    "node-not-ready": 1,
    "cke-reboot": 0.5,
    "pdb-refuses": 0.6,
    "protected-job": 0.3,
    "sabakan-flap": 0.3,
    "rack-power-loss": 0.05,
    "sabakan-outage": 0.1,
    "operator-hold": 0.5,
    "operator-release": 0.6,
    "operator-delete": 0.2,
    "operator-delete-finished": 1,
    "operator-disable": 0.1,
    "operator-enable": 2,
    "operator-constraints": 0.2,
    "leader-failover": 0.2,
  },
};

/** The mix without the kinds named (e.g. to show that a finding needs one of them); an unknown kind is an error. */
export function faultsWithout(kinds: readonly string[]): FaultMix {
  for (const k of kinds)
    if (!Object.hasOwn(ALL_FAULTS.rates, k)) throw new Error(`unknown fault kind ${JSON.stringify(k)}; known: ${Object.keys(ALL_FAULTS.rates).join(", ")}`);
  return { rates: Object.fromEntries(Object.entries(ALL_FAULTS.rates).filter(([k]) => !kinds.includes(k))) };
}

const MIN = 60_000;

/** The world's side of the simulation: draws faults and operators' actions from the seed, and logs each. */
export class SimFaults {
  readonly log: SimFault[] = [];
  /** Told of every release an operator makes (the escalation invariants). */
  onRelease: (address: string, at: number) => void = () => {};

  constructor(
    private readonly world: SimWorld,
    private readonly store: KintsugiStore,
    private readonly sabakan: SimSabakan,
    private readonly random: SimRandom,
    private readonly mix: FaultMix,
    /** Called for a drawn leader failover (the simulator restarts the workers from the stored state). */
    private readonly failover: () => Promise<void>,
  ) {}

  /** Draws the faults of one step of `stepMs` ending at `now`, applies them, and returns how many there were. */
  async step(now: number, stepMs: number): Promise<number> {
    let count = 0;
    const scale = (this.world.machines.length / 100) * (stepMs / 3_600_000);
    for (const [kind, rate] of Object.entries(this.mix.rates)) {
      const expected = kind.startsWith("operator") || kind === "leader-failover" || kind === "sabakan-outage" ? rate * (stepMs / 3_600_000) : rate * scale;
      let n = Math.floor(expected) + (this.random.chance(expected - Math.floor(expected)) ? 1 : 0);
      while (n-- > 0) if (await this.apply(kind, now)) count++;
    }
    if (this.sabakan.down && this.random.chance(0.1)) this.sabakan.down = false;
    return count;
  }

  /** Faults stop: operators release their holds and enable the queue, sabakan answers again. */
  async stop(now: number): Promise<void> {
    for (const h of this.store.holds.list()) await this.release(h.address, now);
    await this.store.settings.setRepairQueueEnabled(true);
    this.sabakan.down = false;
    this.note(now, "faults-stop", null, "no more faults; holds released, queue enabled");
  }

  /** As the API's releaseMachine does: the release is noted for escalation first, then the hold goes. */
  private async release(address: string, now: number): Promise<void> {
    await this.store.settings.noteRelease(address, now);
    await this.store.holds.release(address, "sim-operator");
    this.onRelease(address, now);
  }

  private note(at: number, kind: string, address: string | null, detail: string): true {
    this.log.push({ at, kind, address, detail });
    return true;
  }

  private async apply(kind: string, now: number): Promise<boolean> {
    const r = this.random;
    let m = r.pick(this.world.machines);
    const minutes = (lo: number, hi: number) => r.int(lo, hi) * MIN;
    switch (kind) {
      case "machine-dies": {
        // A quarter of the deaths hit a control plane: few machines, but the rules that guard them are the subtlest.
        if (r.chance(0.25)) m = r.pick(this.world.machines.filter((x) => x.role === "control-plane"));
        if (m.broken) return false;
        const fix: Fix | "self" = r.pick<Fix | "self">(["reboot", "reboot", "reboot", "power-cycle", "power-cycle", "never", "self"]);
        m.broken = { fix: fix === "self" ? "never" : fix, since: now, nodeUp: this.random.chance(0.3) };
        m.recoverAt = fix === "self" ? now + minutes(5, 180) : null;
        const how = fix === "self" ? `recovers by itself at +${((m.recoverAt as number) - now) / MIN} min` : `needs ${fix}`;
        return this.note(now, kind, m.address, m.broken.nodeUp ? `${how}; its Node stays Ready` : how);
      }
      case "node-not-ready":
        m.notReadyUntil = now + minutes(1, 20);
        return this.note(now, kind, m.address, `until +${(m.notReadyUntil - now) / MIN} min`);
      case "cke-reboot":
        if (m.node === null || m.unschedulable) return false;
        m.rebootUntil = now + minutes(5, 40);
        m.rebootSince = now;
        m.annotations[REBOOT_ANNOTATION] = "true";
        m.unschedulable = true;
        return this.note(now, kind, m.address, `until +${(m.rebootUntil - now) / MIN} min`);
      case "pdb-refuses":
        m.pdbUntil = now + minutes(10, 120);
        return this.note(now, kind, m.address, `until +${(m.pdbUntil - now) / MIN} min`);
      case "protected-job":
        m.protectedJobUntil = now + minutes(10, 120);
        return this.note(now, kind, m.address, `until +${(m.protectedJobUntil - now) / MIN} min`);
      case "sabakan-flap":
        m.sabakanFlapUntil = now + minutes(1, 30);
        return this.note(now, kind, m.address, `UNREACHABLE in sabakan until +${(m.sabakanFlapUntil - now) / MIN} min`);
      case "rack-power-loss": {
        const until = now + minutes(10, 60);
        for (const x of this.world.machines) if (x.rack === m.rack) x.rackPowerUntil = until;
        return this.note(now, kind, null, `rack ${m.rack} until +${(until - now) / MIN} min`);
      }
      case "sabakan-outage":
        this.sabakan.down = true;
        return this.note(now, kind, null, "sabakan unreachable");
      default:
        return this.operator(kind, now, m);
    }
  }

  private async operator(kind: string, now: number, m: SimMachine): Promise<boolean> {
    const r = this.random;
    const { store } = this;
    const unfinished = store.entries.list().filter((e) => !isFinished(e) && !e.deleted);
    switch (kind) {
      case "operator-hold": {
        const address = unfinished.length > 0 && r.chance(0.7) ? r.pick(unfinished).address : m.address;
        const until = r.chance(0.5) ? now + r.int(10, 180) * MIN : null;
        await store.holds.hold(() => ({ ok: true, hold: { address, reason: "simulated operator", setBy: "sim-operator", setAt: now, until } }), "sim-operator");
        return this.note(now, kind, address, until === null ? "until released" : `until +${(until - now) / MIN} min`);
      }
      case "operator-release": {
        const held = store.holds.list();
        if (held.length === 0) return false;
        const h = r.pick(held);
        await this.release(h.address, now);
        return this.note(now, kind, h.address, `released (set by ${h.setBy})`);
      }
      case "operator-delete": {
        if (unfinished.length === 0) return false;
        const e = r.pick(unfinished);
        await store.entries.requestDelete((x) => x.index === e.index, "deleted by the simulated operator", now, "sim-operator");
        return this.note(now, kind, e.address, `entry ${e.index}`);
      }
      case "operator-delete-finished": {
        const changes = await store.entries.requestDelete(
          (x) => isFinished(x) && !x.deleted && now - (x.lastTransitionTime ?? 0) > 3_600_000,
          "delete-finished",
          now,
          "sim-operator",
        );
        return changes.length > 0 && this.note(now, kind, null, `${changes.length} finished entries`);
      }
      case "operator-disable":
        if (!store.settings.repairQueueEnabled()) return false;
        await store.settings.setRepairQueueEnabled(false);
        return this.note(now, kind, null, "repair queue disabled");
      case "operator-enable":
        if (store.settings.repairQueueEnabled()) return false;
        await store.settings.setRepairQueueEnabled(true);
        return this.note(now, kind, null, "repair queue enabled");
      case "operator-constraints": {
        const cap = r.int(1, Math.max(2, Math.ceil(this.world.machines.length / 5)));
        const rack = r.int(0, 5);
        await store.settings.setConstraints({ maximumRepairQueueEntries: cap, maximumUnhealthyMachinesPerRack: rack });
        return this.note(now, kind, null, `maximum-repair-queue-entries ${cap}, maximum-unhealthy-machines-per-rack ${rack}`);
      }
      case "leader-failover":
        await this.failover();
        return this.note(now, kind, null, "the runner, poller and health checks restarted from the stored state");
      default:
        throw new Error(`unknown fault ${kind}`);
    }
  }
}

/** Whether kintsugi has the node cordoned (its own mark). */
export function cordonedByKintsugi(m: SimMachine): boolean {
  return m.annotations[CORDONED_BY_ANNOTATION] !== undefined;
}
