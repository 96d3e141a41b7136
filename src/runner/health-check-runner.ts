import { CORDONED_BY_ANNOTATION, type MachineSource, type NodeOperator } from "../adapters/ports.js";
import { parseAddress } from "../domain/shared/address.js";
import type { HealthCheckConfig } from "../domain/health/health-check-config.js";
import { evaluateHealthCheck } from "../domain/health/health-check-evaluation.js";
import { activeHolds, annotationHolds } from "../domain/holds/machine-holds.js";
import { holdEscalated } from "./escalation-holds.js";
import { decideRemediation, healthCheckSource, type HealthCheckStatus } from "../domain/health/health-check-remediation.js";
import type { RepairConfig } from "../domain/queue/repair-config.js";
import { createRepairEntry } from "../domain/queue/repair-entry.js";
import { recordRemediation } from "../domain/replay/remediation-record.js";
import type { KintsugiStore } from "../store/store-port.js";
import { OutageLog } from "./outage-log.js";
import { PassLoop } from "./pass-loop.js";
import type { Log } from "../support/log.js";

export interface HealthCheckRunnerDeps {
  readonly checks: readonly HealthCheckConfig[];
  /** The repair procedures: a node whose type has no procedure with the check's operation is not enqueued. */
  readonly repair: RepairConfig;
  readonly nodes: NodeOperator | null;
  readonly machines: MachineSource | null;
  /** Where pauses are kept and remediations enqueued (each check's decision and its entries in one `enqueue`). */
  readonly store: KintsugiStore;
  readonly now: () => number;
  readonly log: Log;
  readonly intervalMs: number;
  /** Called with a check's status when its evaluation changed. */
  readonly changed: (status: HealthCheckStatus) => void;
}

const signature = (s: HealthCheckStatus) =>
  JSON.stringify([s.paused, s.error, s.held, s.evaluation?.gate, s.evaluation?.targets.map((t) => [t.node, t.state])]);

/**
 * Evaluates the configured checks against the cluster's Nodes whenever a Node changes (a watch), exactly when a
 * pending target is due (a Node CKE is rebooting waits out `wait-seconds-to-repair-rebooting`), and at every interval as a safety net; remediates what an open gate allows through the repair queue, and records Node events when a node turns
 * unhealthy and when remediation is short-circuited.
 */
export class HealthCheckRunner {
  private readonly statuses = new Map<string, HealthCheckStatus>();
  private readonly loop: PassLoop<void, number>;
  private started = false;
  private unwatch: (() => void) | null = null;
  /** Kubernetes or sabakan down fails every evaluation: said once, reminded, and said again when one works. */
  private readonly outage: OutageLog;

  constructor(private readonly deps: HealthCheckRunnerDeps) {
    this.outage = new OutageLog("evaluating the health checks", deps.log, deps.now);
    for (const check of deps.checks)
      this.statuses.set(check.name, { check, paused: this.pausedOf(check), evaluation: null, held: [], evaluatedAt: null, error: null });
    this.loop = new PassLoop<void, number>({
      pass: () => this.pass(),
      now: deps.now,
      merge: () => undefined,
      onError: (err) => this.outage.failed(err),
      timer: { trigger: undefined, intervalMs: deps.intervalMs, nextAt: (next) => next },
    });
  }

  list(): HealthCheckStatus[] {
    return [...this.statuses.values()];
  }

  /** Pauses or resumes a check (persistent); resolves with its status, or null for an unknown name. */
  async setPaused(name: string, paused: boolean): Promise<HealthCheckStatus | null> {
    const status = this.statuses.get(name);
    if (!status) return null;
    await this.deps.store.settings.setHealthCheckPaused(name, paused);
    // Read again: a pass may have recorded a newer evaluation while the write was in flight.
    const next = { ...(this.statuses.get(name) ?? status), paused };
    this.statuses.set(name, next);
    this.deps.changed(next);
    this.wake();
    return next;
  }

  start(): void {
    if (this.deps.checks.length === 0 || !this.deps.nodes) return;
    this.started = true;
    // A node condition change is seen at once, not at the next interval.
    this.unwatch = this.deps.nodes.watchNodes(() => this.wake());
    this.loop.startTimer();
    this.loop.request();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.unwatch?.();
    await this.loop.stop();
  }

  /** One evaluation of every check, after the one in flight (if any); resolves when it has been recorded. */
  async evaluateNow(): Promise<void> {
    await this.loop.run(undefined);
  }

  /** Evaluates now, or right after the evaluation in flight. */
  wake(): void {
    if (this.started) this.loop.request();
  }

  private pausedOf(check: HealthCheckConfig): boolean {
    return this.deps.store.settings.healthCheckPaused(check.name) ?? check.paused;
  }

  /** One evaluation of every check; returns when the next is due at the latest. */
  private async pass(): Promise<number> {
    const { deps } = this;
    let next = deps.now() + deps.intervalMs;
    try {
      const nodes = await (deps.nodes as NodeOperator).listNodes({ signal: this.loop.signal });
      const now = deps.now();
      const annotated = annotationHolds(nodes);
      // Read each pass: an operator may change the constraint at run time.
      const rebootWait = { waitSeconds: deps.store.settings.constraints().waitSecondsToRepairRebooting, cordonedByAnnotation: CORDONED_BY_ANNOTATION };
      let fleet: { types: Map<string, string>; racks: Map<string, number> } | null = null;
      const sabakanFleet = async () => {
        if (!fleet && deps.machines) {
          const machines = await deps.machines.searchMachines({ having: null, notHaving: null });
          fleet = { types: machineTypesByAddress(machines), racks: byFirstAddress(machines, (m) => m.rack) };
        }
        return fleet ?? { types: new Map<string, string>(), racks: new Map<string, number>() };
      };
      const machineTypes = async () => (await sabakanFleet()).types;
      const rackMaximum = deps.store.settings.constraints().maximumUnhealthyMachinesPerRack;
      for (const configured of deps.checks) {
        const check = { ...configured, paused: this.pausedOf(configured) };
        const evaluation = evaluateHealthCheck(check, nodes, now, rebootWait);
        const needsTypes = check.machineType.from === "sabakan" && evaluation.targets.some((t) => t.state === "unhealthy");
        // A closed gate remediates nothing, but its record keeps the types a replay that opens it needs: best effort.
        const types = !needsTypes
          ? new Map<string, string>()
          : evaluation.gate.open
            ? await machineTypes()
            : await machineTypes().catch(() => new Map<string, string>());
        // The per-rack limit reads sabakan's racks (without sabakan it has none to read); sabakan failing to answer
        // fails the evaluation, so nothing is enqueued past a limit that could not be checked. A closed gate's record
        // keeps them too, best effort, so that a replay that opens the gate weighs the limit (a rack's outage is what
        // closes gates).
        const racks =
          rackMaximum > 0 && deps.machines && evaluation.targets.some((t) => t.state === "unhealthy")
            ? evaluation.gate.open
              ? (await sabakanFleet()).racks
              : await sabakanFleet().then(
                  (f) => f.racks,
                  () => null,
                )
            : null;
        const labels = new Map(nodes.map((n) => [n.name, n.labels]));
        const machineTypeOf = (node: string, address: string) =>
          check.machineType.from === "label" ? (labels.get(node)?.[check.machineType.label] ?? null) : (types.get(address) ?? null);
        const at = deps.now();
        // Decided inside the write, on the queue as stored: the room left under the queue's limit cannot be used twice.
        const { decision } = await deps.store.enqueue(
          (entries) => {
            const escalation = deps.repair.escalation && {
              config: deps.repair.escalation,
              finished: deps.store.finished.list(),
              releases: deps.store.settings.escalationReleases(),
              now,
            };
            const context = {
              entries,
              maximumRepairQueueEntries: deps.store.settings.constraints().maximumRepairQueueEntries,
              repair: deps.repair,
              machineTypeOf,
              holds: activeHolds(deps.store.holds.list(), annotated, now),
              ...(escalation && { escalation }),
              ...(racks && { rackLimit: { maximum: rackMaximum, rackOf: (address: string) => racks.get(address) ?? null } }),
            };
            const decided = decideRemediation(check, evaluation, context);
            return {
              remediation: decided,
              add: decided.enqueue.map((e) => ({ entry: createRepairEntry(e, at), reason: e.reason })),
              outcome: null,
              // A check with no unhealthy target remediates nothing whatever the limits: nothing to replay.
              ...(evaluation.targets.some((t) => t.state === "unhealthy") && { remediationRecord: recordRemediation(evaluation, context, decided, now) }),
            };
          },
          at,
          healthCheckSource(check.name),
        );
        await holdEscalated(deps.store, decision.remediation.escalationHolds ?? [], at, deps.log);
        this.record(check, { check, paused: check.paused, evaluation, held: decision.remediation.held, evaluatedAt: now, error: null });
        if (evaluation.nextCheckAt !== null) next = Math.min(next, evaluation.nextCheckAt);
      }
      this.outage.worked();
    } catch (err) {
      const message = `cannot evaluate health checks: ${(err as Error).message}`;
      this.outage.failed(err);
      for (const status of this.statuses.values()) this.record(status.check, { ...status, error: message });
    }
    return next;
  }

  private record(check: HealthCheckConfig, status: HealthCheckStatus): void {
    const before = this.statuses.get(check.name);
    this.statuses.set(check.name, status);
    if (before && signature(before) === signature(status)) return;
    this.deps.changed(status);
    this.recordEvents(before, status);
  }

  private recordEvents(before: HealthCheckStatus | undefined, after: HealthCheckStatus): void {
    const nodes = this.deps.nodes;
    if (!nodes || !after.evaluation) return;
    const was = new Map(before?.evaluation?.targets.map((t) => [t.node, t.state]) ?? []);
    const held = new Set(after.held.map((h) => h.node));
    const wasHeld = new Set(before?.held.map((h) => h.node) ?? []);
    for (const t of after.evaluation.targets) {
      const events = [];
      if (t.state === "unhealthy" && was.get(t.node) !== "unhealthy") {
        events.push({
          type: "Warning" as const,
          reason: "NodeUnhealthy",
          message: `health check ${after.check.name}: ${t.rule?.type}=${t.rule?.status} for more than ${t.rule?.timeoutSeconds} s`,
        });
      }
      if (held.has(t.node) && !wasHeld.has(t.node) && !after.evaluation.gate.open) {
        events.push({
          type: "Warning" as const,
          reason: "RemediationShortCircuited",
          message: `health check ${after.check.name}: ${after.evaluation.gate.reason}`,
        });
      }
      for (const event of events)
        nodes
          .recordEvent(t.node, event, { signal: this.loop.signal })
          .catch((err: unknown) => this.deps.log.warn("cannot record a node event", { node: t.node, err: (err as Error).message }));
    }
  }
}

/** sabakan's BMC type by first IPv4 in canonical form; a machine whose first IPv4 is not an address has none. */
export function machineTypesByAddress(machines: ReadonlyArray<{ readonly ipv4: readonly string[]; readonly bmcType: string }>): Map<string, string> {
  return byFirstAddress(machines, (m) => m.bmcType);
}

/** `value` of each machine by its first IPv4 in canonical form (the first machine of an address wins; none without one). */
function byFirstAddress<M extends { readonly ipv4: readonly string[] }, V>(machines: readonly M[], value: (m: M) => V): Map<string, V> {
  const out = new Map<string, V>();
  for (const m of machines) {
    const parsed = parseAddress(m.ipv4[0] ?? "");
    if (parsed.ok && !out.has(parsed.address)) out.set(parsed.address, value(m));
  }
  return out;
}
