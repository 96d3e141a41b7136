import { CORDONED_BY_ANNOTATION } from "../adapters/ports.js";
import { REBOOT_ANNOTATION } from "../domain/shared/node-reboot.js";
import type { KintsugiStore } from "../store/store-port.js";
import { AimedFaults, AIMED_KINDS } from "./sim-aimed.js";
import { SimOperators } from "./sim-operators.js";
import type { SimRandom } from "./sim-random.js";
import type { SimNodes, SimSabakan } from "./sim-kube.js";
import type { SimCommands } from "./sim-commands.js";
import type { ConfigVariant } from "./sim-config.js";
import type { FailoverMode } from "./sim-kintsugi.js";
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
  /** Events per hour per 100 machines (machine faults) or per hour (the rest), by kind; a kind left out is never drawn. */
  readonly rates: Readonly<Record<string, number>>;
}

/** The first model's faults, drawn evenly over the machines (the classic model). */
export const CLASSIC_FAULTS: FaultMix = {
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

/**
 * The whole model's faults: the classic ones, denser, operators' other actions (entries added by hand, back-offs
 * reset, the health check paused and resumed, the repair config changed under a running kintsugi), windows of
 * Kubernetes API errors, a rack losing part of its machines at once, and faults aimed where they hurt (see
 * sim-aimed.ts).
 */
export const FULL_FAULTS: FaultMix = {
  rates: {
    ...CLASSIC_FAULTS.rates,
    "machine-dies": 4,
    "node-not-ready": 2,
    "cke-reboot": 2,
    "pdb-refuses": 1,
    "sabakan-flap": 1,
    "rack-power-loss": 0.1,
    "sabakan-outage": 0.3,
    "operator-hold": 1.5,
    "operator-release": 1.5,
    "operator-delete": 0.4,
    "operator-delete-finished": 3,
    "operator-disable": 0.6,
    "operator-constraints": 0.6,
    "leader-failover": 0.5,
    "control-plane-dies": 0.6,
    "rack-partial-failure": 0.3,
    "operator-add": 1,
    "operator-reset-backoff": 0.5,
    "operator-pause-check": 0.4,
    "operator-resume-check": 1.5,
    "config-change": 0.3,
    "kube-api-errors": 0.4,
    "pdb-on-draining": 3,
    "pod-stuck-on-draining": 2,
    "node-leaves-mid-drain": 1,
    "sabakan-outage-in-dwell": 2,
    "relapse-in-dwell": 1,
    "failover-before-command": 1,
    "second-control-plane-dies": 2,
    "hold-mid-repair": 1,
    "repaired-machine-dies-again": 2,
    "cap-at-queue-size": 0.5,
    "leader-frozen": 0.5,
    "leader-frozen-mid-command": 1.5,
    "leader-frozen-while-a-command-hangs": 2,
    "stop-before-start-recorded": 1,
    "uncordon-refused": 2,
    "other-plane-down-in-dwell": 3,
    "bmc-no-op-then-fault-clears": 2,
  },
};

/** The kinds drawn per hour whatever the size of the data center (the rest scale with it). */
const PER_HOUR = new Set(["sabakan-outage", "leader-failover", "leader-frozen", "config-change", "kube-api-errors", "control-plane-dies", ...AIMED_KINDS]);

/**
 * `from` with entries deleted beside their inherited commands (sim-aimed.ts), four an hour: a sweep of its own, so the
 * draws of every other run stay as they were.
 */
export function withFencedDeletions(from: FaultMix): FaultMix {
  return { rates: { ...from.rates, "entry-deleted-beside-its-inherited-command": 4 } };
}

/** `from` without the kinds named (e.g. to show that a finding needs one of them); an unknown kind is an error. */
export function faultsWithout(kinds: readonly string[], from: FaultMix = CLASSIC_FAULTS): FaultMix {
  for (const k of kinds)
    if (!Object.hasOwn(from.rates, k)) throw new Error(`unknown fault kind ${JSON.stringify(k)}; known: ${Object.keys(from.rates).join(", ")}`);
  return { rates: Object.fromEntries(Object.entries(from.rates).filter(([k]) => !kinds.includes(k))) };
}

const MIN = 60_000;

/** What the faults act on besides the world and the store. */
export interface FaultTargets {
  readonly sabakan: SimSabakan;
  readonly nodes: SimNodes;
  readonly commands: SimCommands;
  /**
   * A leader failover (the simulator restarts the workers from the stored state), with a new repair config if given;
   * resolves with how many commands the old leader left running (a frozen one's).
   */
  readonly failover: (variant?: ConfigVariant, mode?: FailoverMode) => Promise<number>;
  /** Arms the stop of the leader before it records the start of the next command it decided (see SimKintsugi). */
  readonly stopBeforeStart: (instead: (entryIndex: number, at: number) => void) => boolean;
  /** The operations the repair config in force has (an operator adds entries of these). */
  readonly operations: () => readonly string[];
}

/** The world's side of the simulation: draws faults and operators' actions from the seed, and logs each. */
export class SimFaults {
  readonly log: SimFault[] = [];
  readonly operators: SimOperators;
  private readonly aimed: AimedFaults;
  private apiErrorsUntil = 0;

  constructor(
    private readonly world: SimWorld,
    private readonly store: KintsugiStore,
    private readonly random: SimRandom,
    private readonly mix: FaultMix,
    private readonly targets: FaultTargets,
    /** The health check is paused by its config (operators resume it through the store). */
    healthPausedByConfig = false,
  ) {
    const note = (at: number, kind: string, address: string | null, detail: string) => this.note(at, kind, address, detail);
    const full = Object.hasOwn(mix.rates, "control-plane-dies");
    this.operators = new SimOperators(world, store, random, targets, note, healthPausedByConfig, full ? 600_000 : 3_600_000);
    this.aimed = new AimedFaults(world, store, random, targets, note, (m, now, kind, nodeUp) => this.kill(m, now, kind, nodeUp));
  }

  /** The failover an aimed fault asked for (the simulator performs it after the pass), and how; clears it. */
  takePendingFailover(): FailoverMode | null {
    const pending = this.aimed.failoverPending;
    this.aimed.failoverPending = null;
    return pending;
  }

  /** Draws the faults of one step of `stepMs` ending at `now`, applies them, and returns how many there were. */
  async step(now: number, stepMs: number): Promise<number> {
    await this.aimed.afterFailover(now);
    let count = 0;
    const scale = (this.world.machines.length / 100) * (stepMs / 3_600_000);
    for (const [kind, rate] of Object.entries(this.mix.rates)) {
      const expected = kind.startsWith("operator") || PER_HOUR.has(kind) ? rate * (stepMs / 3_600_000) : rate * scale;
      let n = Math.floor(expected) + (this.random.chance(expected - Math.floor(expected)) ? 1 : 0);
      while (n-- > 0) if (await this.apply(kind, now)) count++;
    }
    if (this.targets.sabakan.down && this.random.chance(0.1)) this.targets.sabakan.down = false;
    if (this.apiErrorsUntil !== 0 && now >= this.apiErrorsUntil) {
      this.apiErrorsUntil = 0;
      this.targets.nodes.errorRate = 0;
    }
    return count;
  }

  /** Faults stop: operators release their holds, enable the queue and the health check, restore the config; every service answers. */
  async stop(now: number): Promise<void> {
    await this.operators.stop(now);
    this.targets.sabakan.down = false;
    this.targets.nodes.errorRate = 0;
    this.targets.nodes.refuseUncordons = 0;
    this.targets.commands.failoverInstead = null;
    this.targets.commands.freezeAfterStart = null;
    this.targets.commands.noOpNext = null;
    this.note(now, "faults-stop", null, "no more faults; holds released, queue enabled");
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
        // (The whole model draws control planes' deaths apart, by the hour: there are as many at 1,000 machines.)
        if (!Object.hasOwn(this.mix.rates, "control-plane-dies") && r.chance(0.25)) m = r.pick(this.world.machines.filter((x) => x.role === "control-plane"));
        return this.kill(m, now, kind);
      }
      case "control-plane-dies":
        return this.kill(r.pick(this.world.machines.filter((x) => x.role === "control-plane")), now, kind);
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
      case "rack-partial-failure": {
        // A switch or a PDU: several machines of one rack fail together, fewer than the whole rack.
        const rack = this.world.machines.filter((x) => x.rack === m.rack && x.broken === null);
        const n = Math.min(rack.length, r.int(3, 6));
        const first = r.int(0, Math.max(0, rack.length - 1));
        for (let i = 0; i < n; i++) this.kill(rack[(first + i) % rack.length] as SimMachine, now, kind);
        return this.note(now, kind, null, `rack ${m.rack}: ${n} machines`);
      }
      case "sabakan-outage":
        this.targets.sabakan.down = true;
        return this.note(now, kind, null, "sabakan unreachable");
      case "leader-frozen": {
        // SIGSTOP or a long pause, past the lease: another replica leads; the frozen one's commands run on.
        const resumeAt = now + minutes(1, 15);
        const orphans = await this.targets.failover(undefined, { kind: "frozen", resumeAt });
        return this.note(now, kind, null, `the leader froze until +${(resumeAt - now) / MIN} min, leaving ${orphans} commands running; another replica leads`);
      }
      case "kube-api-errors":
        this.apiErrorsUntil = now + minutes(5, 20);
        this.targets.nodes.errorRate = 0.2;
        return this.note(now, kind, null, `a fifth of the Kubernetes API calls fail until +${(this.apiErrorsUntil - now) / MIN} min`);
      default:
        if (AIMED_KINDS.includes(kind)) return this.aimed.apply(kind, now);
        return this.operators.apply(kind, now, m);
    }
  }

  /** A machine breaks (some recover by themselves, some keep their Node Ready: always when `nodeUp`). */
  kill(m: SimMachine, now: number, kind: string, nodeUp = false): boolean {
    const r = this.random;
    if (m.broken) return false;
    const fix: Fix | "self" = r.pick<Fix | "self">(["reboot", "reboot", "reboot", "power-cycle", "power-cycle", "never", "self"]);
    m.broken = { fix: fix === "self" ? "never" : fix, since: now, nodeUp: r.chance(0.3) || nodeUp };
    m.recoverAt = fix === "self" ? now + r.int(5, 180) * MIN : null;
    const how = fix === "self" ? `recovers by itself at +${((m.recoverAt as number) - now) / MIN} min` : `needs ${fix}`;
    return this.note(now, kind, m.address, m.broken.nodeUp ? `${how}; its Node stays Ready` : how);
  }
}

/** Whether kintsugi has the node cordoned (its own mark). */
export function cordonedByKintsugi(m: SimMachine): boolean {
  return m.annotations[CORDONED_BY_ANNOTATION] !== undefined;
}
