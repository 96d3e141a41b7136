import type { EscalationConfig } from "../domain/escalation/repair-escalation.js";
import type { HealthCheckConfig } from "../domain/health/health-check-config.js";
import type { RepairEntry } from "../domain/queue/repair-entry.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";
import type { KintsugiStore } from "../store/store-port.js";
import type { Checks } from "./sim-checks.js";
import { ckeRebootingWithin, isNode } from "./sim-truth.js";
import type { SimMachine, SimWorld } from "./sim-world.js";

/** What one intake did and the limits it ran under (see IntakeInvariants.afterIntake). */
export interface IntakeToCheck {
  readonly source: "sabakan" | "health-check";
  /** Every entry in the queue before the intake. */
  readonly before: readonly RepairEntry[];
  /** The entries the intake enqueued. */
  readonly added: readonly RepairEntry[];
  /** The machines escalation held in this intake (its holds stored). */
  readonly escalationHeld: readonly string[];
  /** How many entries the queue holds after it. */
  readonly total: number;
  /** maximum-repair-queue-entries. */
  readonly cap: number;
  /** maximum-unhealthy-machines-per-rack (0: off). */
  readonly rackLimit: number;
  /** What sabakan answered the trigger (sabakan intakes). */
  readonly answer: readonly SabakanMachine[] | null;
  /** wait-seconds-to-repair-rebooting. */
  readonly rebootWaitSeconds: number;
  /** The health check as configured, and whether it was paused as it ran (health-check intakes). */
  readonly check: HealthCheckConfig;
  readonly paused: boolean;
  readonly now: number;
}

/**
 * The invariants of every intake (a sabakan poll, a health-check evaluation): the queue cap; the per-rack limit
 * (sabakan's answer, or the racks' unhealthy Nodes for a health check); no machine that has an entry enqueued again;
 * no machine CKE is rebooting within the wait; a health check only remediates a Node past its timeout, through an
 * open gate (not paused, within its maximum or range); escalation's operation for a repeat offender, and only for one;
 * escalation's holds only from a round whose entries and holds fit the queue cap (CKE's Repairer counts them).
 */
export class IntakeInvariants {
  constructor(
    private readonly checks: Checks,
    private readonly world: SimWorld,
    private readonly store: KintsugiStore,
    private readonly escalation: EscalationConfig | undefined,
  ) {}

  afterIntake(c: IntakeToCheck): void {
    const { checks } = this;
    if (c.escalationHeld.length > 0)
      checks.check(
        "escalation-holds-within-the-cap",
        c.before.length + c.added.length + c.escalationHeld.length <= c.cap,
        () =>
          `a ${c.source} round held ${c.escalationHeld.join(", ")} and enqueued ${c.added.length} entries over ${c.before.length} in the queue: more than maximum-repair-queue-entries ${c.cap} (a capped round acts on nothing)`,
        c.escalationHeld[0] ?? null,
      );
    if (c.added.length === 0) return;
    const first = c.added[0] as RepairEntry;
    checks.check(
      "queue-cap",
      c.total <= c.cap,
      () => `${c.added.length} entries enqueued, leaving ${c.total} in the queue; maximum-repair-queue-entries is ${c.cap}`,
      first.address,
      first.index,
    );
    const persisting = new Set(c.before.map((e) => e.address));
    for (const e of c.added) {
      const m = this.world.at(e.address);
      if (!m) continue;
      checks.check(
        "no-intake-of-a-queued-machine",
        !persisting.has(e.address),
        () => `entry ${e.index} (${e.source}) enqueued for ${e.address}, which has an entry in the queue`,
        e.address,
        e.index,
      );
      persisting.add(e.address);
      // The rule is the same for both: a machine CKE reboots is left alone until it has been down for the wait.
      const down = c.source === "sabakan" ? (m.state === "UNREACHABLE" ? c.now - m.stateSince : Infinity) : m.ready ? 0 : c.now - m.readySince;
      checks.check(
        "no-intake-of-a-rebooting-machine",
        !ckeRebootingWithin(m, down, c.rebootWaitSeconds, c.now),
        () =>
          `entry ${e.index} (${e.source}) enqueued for ${e.address}, which CKE is rebooting, down for ${Math.round(down / 1000)} s (wait-seconds-to-repair-rebooting ${c.rebootWaitSeconds})`,
        e.address,
        e.index,
      );
      if (c.rackLimit > 0) {
        const inRack =
          c.source === "sabakan" ? (c.answer ?? []).filter((x) => x.rack === m.rack).length : this.unhealthyNodes(c).filter((x) => x.rack === m.rack).length;
        checks.check(
          "per-rack-limit",
          inRack <= c.rackLimit,
          () =>
            `entry ${e.index} (${e.source}) enqueued from rack ${m.rack}, which has ${inRack} unhealthy machines (maximum-unhealthy-machines-per-rack ${c.rackLimit})`,
          e.address,
          e.index,
        );
      }
      if (c.source === "health-check") this.healthCheck(c, e, m);
      if (this.escalation) this.escalated(this.escalation, c, e);
    }
  }

  /** The Nodes a health check targets and finds unhealthy (NotReady past its timeout, not within CKE's reboot wait). */
  private unhealthyNodes(c: IntakeToCheck): SimMachine[] {
    const timeout = (c.check.unhealthyConditions[0]?.timeoutSeconds ?? 0) * 1000;
    return this.world.machines.filter(
      (m) => isNode(m) && !m.ready && c.now - m.readySince > timeout && !ckeRebootingWithin(m, c.now - m.readySince, c.rebootWaitSeconds, c.now),
    );
  }

  private healthCheck(c: IntakeToCheck, e: RepairEntry, m: SimMachine): void {
    const { checks } = this;
    const timeout = c.check.unhealthyConditions[0]?.timeoutSeconds ?? 0;
    checks.check(
      "health-check-timeout",
      isNode(m) && !m.ready && c.now - m.readySince > timeout * 1000,
      () =>
        `entry ${e.index} enqueued for ${e.address}, whose Node is ${m.ready ? "Ready" : `NotReady for ${Math.round((c.now - m.readySince) / 1000)} s`} (timeout ${timeout} s)`,
      e.address,
      e.index,
    );
    const targets = this.world.machines.filter(isNode);
    const failing = targets.filter((x) => !x.ready).length;
    const range = c.check.unhealthyRange;
    const max = c.check.maxUnhealthy.kind === "count" ? c.check.maxUnhealthy.value : Math.floor((c.check.maxUnhealthy.value * targets.length) / 100);
    const open = !c.paused && (range ? range.min <= failing && failing <= range.max : failing <= max);
    checks.check(
      "health-check-gate",
      open,
      () =>
        `entry ${e.index} enqueued by health check ${c.check.name} ${c.paused ? "while it is paused" : `with ${failing} of ${targets.length} targets failing (${range ? `range [${range.min}-${range.max}]` : `max ${max}`})`}`,
      e.address,
      e.index,
    );
  }

  /** A repeat offender gets escalation's operation (and only once in its window); any other machine its own. */
  private escalated(config: EscalationConfig, c: IntakeToCheck, e: RepairEntry): void {
    const release = this.store.settings.escalationReleases().get(e.address) ?? -Infinity;
    const since = Math.max(c.now - config.windowSeconds * 1000, release);
    const repairs = new Map<number, string>();
    for (const x of c.before) if (x.address === e.address && x.createdAt > since) repairs.set(x.index, x.operation);
    for (const f of this.store.finished.list()) if (f.address === e.address && f.createdAt > since) repairs.set(f.entryIndex, f.operation);
    const offender = repairs.size >= config.maxRepairs;
    const escalatedBefore = config.operation !== null && [...repairs.values()].includes(config.operation);
    const ok = !offender
      ? e.operation !== config.operation || config.operation === null
      : config.operation !== null && !escalatedBefore && e.operation === config.operation;
    this.checks.check(
      "escalation-respected",
      ok,
      () =>
        `entry ${e.index} (${e.operation}) enqueued for ${e.address}, which had ${repairs.size} repairs in the window (max_repairs ${config.maxRepairs}, escalation ${config.operation ?? "hold"})`,
      e.address,
      e.index,
    );
  }
}
