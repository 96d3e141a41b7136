import { createRepairEntry, isFinished } from "../domain/queue/repair-entry.js";
import type { KintsugiStore } from "../store/store-port.js";
import { CONFIG_VARIANTS, SIM_HEALTH_CHECK, type ConfigVariant } from "./sim-config.js";
import type { FaultTargets } from "./sim-faults.js";
import type { SimRandom } from "./sim-random.js";
import { SIM_BMC_TYPE, type SimMachine, type SimWorld } from "./sim-world.js";

const MIN = 60_000;
/** Who the simulated operators are, in the history and on their holds. */
export const SIM_OPERATOR = "sim-operator";

type Note = (at: number, kind: string, address: string | null, detail: string) => true;

/**
 * The operators of the simulated data center, acting through the store as the API does: holds and releases,
 * deletions, the queue disabled and enabled, constraints changed, failovers; with the whole model also entries
 * added by hand (often for a machine that has one), back-offs reset, the health check paused and resumed, and the
 * repair config changed under the running kintsugi.
 */
export class SimOperators {
  /** Told of every release an operator makes (the escalation invariants). */
  onRelease: (address: string, at: number) => void = () => {};
  /** The repair config in force (a config change restarts the leader with another). */
  variant: ConfigVariant = "base";

  constructor(
    private readonly world: SimWorld,
    private readonly store: KintsugiStore,
    private readonly random: SimRandom,
    private readonly targets: FaultTargets,
    private readonly note: Note,
    /** The health check is paused by its config (operators resume it through the store). */
    private readonly pausedByConfig = false,
    /** How long an entry has been finished before `delete-finished` takes it (the whole model's operators clean up sooner). */
    private readonly finishedForMs = 3_600_000,
  ) {}

  /** As the API's releaseMachine does: the release is noted for escalation first, then the hold goes. */
  async release(address: string, now: number): Promise<void> {
    await this.store.settings.noteRelease(address, now);
    await this.store.holds.release(address, SIM_OPERATOR);
    this.onRelease(address, now);
  }

  /** Faults stop: every hold released, the queue and the health check on, the config the run started with. */
  async stop(now: number): Promise<void> {
    for (const h of this.store.holds.list()) await this.release(h.address, now);
    await this.store.settings.setRepairQueueEnabled(true);
    if (this.store.settings.healthCheckPaused(SIM_HEALTH_CHECK.name) ?? this.pausedByConfig)
      await this.store.settings.setHealthCheckPaused(SIM_HEALTH_CHECK.name, false);
    if (this.variant !== "base") {
      this.variant = "base";
      await this.targets.failover("base");
    }
  }

  async apply(kind: string, now: number, m: SimMachine): Promise<boolean> {
    const r = this.random;
    const { store, note } = this;
    const unfinished = store.entries.list().filter((e) => !isFinished(e) && !e.deleted);
    switch (kind) {
      case "operator-hold": {
        const address = unfinished.length > 0 && r.chance(0.7) ? r.pick(unfinished).address : m.address;
        const until = r.chance(0.5) ? now + r.int(10, 180) * MIN : null;
        await store.holds.hold(() => ({ ok: true, hold: { address, reason: "simulated operator", setBy: SIM_OPERATOR, setAt: now, until } }), SIM_OPERATOR);
        return note(now, kind, address, until === null ? "until released" : `until +${(until - now) / MIN} min`);
      }
      case "operator-release": {
        const held = store.holds.list();
        if (held.length === 0) return false;
        const h = r.pick(held);
        await this.release(h.address, now);
        return note(now, kind, h.address, `released (set by ${h.setBy})`);
      }
      case "operator-delete": {
        if (unfinished.length === 0) return false;
        const e = r.pick(unfinished);
        await store.entries.requestDelete((x) => x.index === e.index, "deleted by the simulated operator", now, SIM_OPERATOR);
        return note(now, kind, e.address, `entry ${e.index}`);
      }
      case "operator-delete-finished": {
        const changes = await store.entries.requestDelete(
          (x) => isFinished(x) && !x.deleted && now - (x.lastTransitionTime ?? 0) > this.finishedForMs,
          "delete-finished",
          now,
          SIM_OPERATOR,
        );
        return changes.length > 0 && note(now, kind, null, `${changes.length} finished entries`);
      }
      case "operator-disable":
        if (!store.settings.repairQueueEnabled()) return false;
        await store.settings.setRepairQueueEnabled(false);
        return note(now, kind, null, "repair queue disabled");
      case "operator-enable":
        if (store.settings.repairQueueEnabled()) return false;
        await store.settings.setRepairQueueEnabled(true);
        return note(now, kind, null, "repair queue enabled");
      case "operator-constraints": {
        const cap = r.int(1, Math.max(2, Math.ceil(this.world.machines.length / 5)));
        const rack = r.int(0, 5);
        await store.settings.setConstraints({ maximumRepairQueueEntries: cap, maximumUnhealthyMachinesPerRack: rack });
        return note(now, kind, null, `maximum-repair-queue-entries ${cap}, maximum-unhealthy-machines-per-rack ${rack}`);
      }
      case "leader-failover":
        await this.targets.failover();
        return note(now, kind, null, "the runner, poller and health checks restarted from the stored state");
      default:
        return this.wholeModel(kind, now, m, unfinished);
    }
  }

  /** The actions only the whole model draws. */
  private async wholeModel(kind: string, now: number, m: SimMachine, unfinished: ReadonlyArray<{ readonly address: string }>): Promise<boolean> {
    const r = this.random;
    const { store, note } = this;
    switch (kind) {
      case "operator-add": {
        // As `kintsugi repair-queue add`: any machine, often one that has an entry already (the queue allows it).
        const target = unfinished.length > 0 && r.chance(0.4) ? (this.world.at(r.pick(unfinished).address) ?? m) : m;
        const operation = r.pick(this.targets.operations());
        const entry = createRepairEntry({ address: target.address, machineType: SIM_BMC_TYPE, operation, serial: target.serial, source: "operator" }, now);
        const change = await store.entries.add(entry, "added by an operator", now, SIM_OPERATOR);
        return note(now, kind, target.address, `entry ${change.entry.index} (${operation})`);
      }
      case "operator-reset-backoff": {
        const changes = await store.entries.resetBackoff("drain back-off reset by an operator", now, SIM_OPERATOR);
        return changes.length > 0 && note(now, kind, null, `entries ${changes.map((c) => c.entry.index).join(", ")}`);
      }
      case "operator-pause-check":
      case "operator-resume-check": {
        const paused = kind === "operator-pause-check";
        if ((store.settings.healthCheckPaused(SIM_HEALTH_CHECK.name) ?? this.pausedByConfig) === paused) return false;
        await store.settings.setHealthCheckPaused(SIM_HEALTH_CHECK.name, paused);
        return note(now, kind, null, `health check ${SIM_HEALTH_CHECK.name} ${paused ? "paused" : "resumed"}`);
      }
      case "config-change": {
        const variant = r.pick(CONFIG_VARIANTS.filter((v) => v !== this.variant));
        this.variant = variant;
        await this.targets.failover(variant);
        return note(now, kind, null, `the leader restarts with the repair config ${variant}`);
      }
      default:
        throw new Error(`unknown fault ${kind}`);
    }
  }
}
