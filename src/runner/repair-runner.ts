import { controlPlanesOf } from "../domain/control-planes.js";
import { decideRepairActions } from "../domain/repair-decision.js";
import { isFinished, type RepairEntry } from "../domain/repair-entry.js";
import { nodeEventFor } from "../domain/repair-events.js";
import { RUNNER_ACTOR } from "../domain/repair-history.js";
import { snapshotRepairConfig } from "../domain/repair-lookup.js";
import { cordonOwner, strayCordons } from "../domain/stray-cordons.js";
import { CORDONED_BY_ANNOTATION } from "../adapters/ports.js";
import type { EntryTransition, RepairAction } from "../domain/repair-plan.js";
import { gatherObservations } from "./gather-state.js";
import { JobRegistry } from "./job-registry.js";
import { drainJob, repairCommandJob, successCommandJob, type CommitIfUnchanged } from "./repair-jobs.js";
import { PassLoop } from "./pass-loop.js";
import type { RunnerDeps } from "./runner-deps.js";

const sameEntry = (a: RepairEntry, b: RepairEntry) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Works the repair queue: each pass gathers state, lets `decideRepairActions` decide, commits each action's
 * transitions in one transaction and then performs its effect. Passes never overlap; one runs right after any
 * wake-up (a mutation, a finished job, a Node change), at the decision's `wakeAt`, and at least every `intervalMs`.
 * Drains and commands run as jobs beside the passes, so a slow command never holds up other entries, the API or
 * health checks.
 */
export class RepairRunner {
  readonly jobs = new JobRegistry();
  private readonly background = new Set<Promise<void>>();
  private readonly dequeuing = new Set<number>();
  private readonly loop: PassLoop<void, number | null>;
  private started = false;
  private unwatch: (() => void) | null = null;
  private held: ReadonlyMap<number, string> = new Map();

  constructor(private readonly deps: RunnerDeps) {
    this.loop = new PassLoop<void, number | null>({
      pass: (_trigger, signal) => this.pass(signal),
      now: deps.now,
      merge: () => undefined,
      onError: (err) => deps.log.error("repair pass failed; retrying at the next tick", { err: (err as Error).message }),
      timer: { trigger: undefined, intervalMs: deps.intervalMs, nextAt: (wakeAt) => wakeAt },
    });
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    // A control plane turning Ready or ending its reboot is seen at once, not at the next interval.
    this.unwatch = this.deps.nodes?.watchNodes(() => this.wake()) ?? null;
    this.loop.startTimer();
    this.loop.request();
  }

  /** Asks for a pass as soon as possible (coalesced with one already running). */
  wake(): void {
    if (this.started) this.loop.request();
  }

  /**
   * Stops passes, ends the Kubernetes calls in flight (passes, uncordons, events: shutdown never waits on them),
   * stops every job (killing their commands), and waits for everything to settle.
   */
  async stop(): Promise<void> {
    this.started = false;
    this.unwatch?.();
    await this.loop.stop();
    await this.jobs.stopAll();
    await Promise.all(this.background);
  }

  /** How many passes have completed (for tests and benchmarks). */
  get passCount(): number {
    return this.loop.passCount;
  }

  /** Why the last pass left the entry where it is (a rule held it), or null when it moved or nothing held it. */
  waitReason(index: number): string | null {
    return this.held.get(index) ?? null;
  }

  /** One pass; returns when to look again at the latest (null: at the interval). */
  private async pass(signal: AbortSignal): Promise<number | null> {
    const { deps } = this;
    const entries = deps.entries.list();
    const { observations, nodes } = await gatherObservations(entries, {
      repair: deps.repair,
      commands: deps.commands,
      nodes: deps.nodes,
      jobs: this.jobs,
      healthCheckConcurrency: deps.healthCheckConcurrency,
      log: deps.log.warn.bind(deps.log),
      signal,
    });
    // Calls cut short by stop() leave the observations incomplete: decide nothing from them.
    if (signal.aborted) return null;
    const controlPlanes = controlPlanesOf(nodes, deps.generatedControlPlanes(), deps.nodes !== null, CORDONED_BY_ANNOTATION);
    const snapshot = { entries, observations, repair: snapshotRepairConfig(deps.repair), queueEnabled: deps.settings.repairQueueEnabled(), controlPlanes };
    const plan = decideRepairActions(snapshot, deps.now(), deps.random);
    for (const action of plan.actions) this.apply(action);
    this.held = plan.held;
    // Read again: the actions just applied may have finished entries whose nodes are among these.
    for (const [node, owner] of strayCordons(nodes, deps.entries.list(), CORDONED_BY_ANNOTATION)) {
      this.inBackground(this.uncordonNode(node, owner));
    }
    return plan.wakeAt;
  }

  /** Commits an action's transitions when the stored entry is still the one decided on, then starts its effect. */
  private apply(action: RepairAction): void {
    const index = action.entry.index;
    const current = this.deps.entries.get(index);
    if (!current || !sameEntry(current, action.entry) || this.dequeuing.has(index)) return;
    const latest = this.commit(current, action.transitions);
    const effect = action.effect;
    switch (effect.kind) {
      case "none":
        return;
      case "uncordon":
        return this.inBackground(this.uncordon(latest));
      case "abandon-drain":
        return this.inBackground(this.jobs.stop(index).then(() => this.uncordon(latest)));
      case "dequeue":
        return this.dequeue(latest);
      case "drain":
        return this.startJob(latest, "drain", async (signal) => {
          const result = await drainJob(this.deps, this.commitIfUnchanged, latest, signal);
          if (result === "started") this.jobs.markDrainDone(index, latest.lastTransitionTime);
          else if (result) await this.uncordon(result.after);
        });
      case "repair-command":
        return this.startJob(latest, "repair-command", async (signal) => {
          const t = await repairCommandJob(this.deps, this.commitIfUnchanged, latest, effect.step, signal);
          if (t && isFinished(t.after)) await this.uncordon(t.after);
        });
      case "success-command":
        return this.startJob(latest, "success-command", async (signal) => {
          const t = await successCommandJob(this.deps, this.commitIfUnchanged, latest, effect.operation, signal);
          if (t) await this.uncordon(t.after);
        });
    }
  }

  private readonly commitIfUnchanged: CommitIfUnchanged = (worked, decide) => {
    const current = this.deps.entries.get(worked.index);
    if (!current || current.deleted || this.dequeuing.has(worked.index)) return null;
    const same = current.status === worked.status && current.step === worked.step && current.stepStatus === worked.stepStatus && current.lastTransitionTime === worked.lastTransitionTime;
    if (!same) return null;
    const t = decide(current);
    if (t) this.commit(current, [t]);
    return t;
  };

  /** Persists transitions in one transaction, announces them, and records their Node events. */
  private commit(before: RepairEntry, transitions: readonly EntryTransition[]): RepairEntry {
    if (transitions.length === 0) return before;
    const changes = this.deps.entries.update(transitions.map((t) => ({ entry: t.after, kind: t.kind, reason: t.reason, detail: t.detail ?? null })), this.deps.now(), RUNNER_ACTOR);
    this.deps.committed(changes);
    let previous = before;
    for (const t of transitions) {
      const event = nodeEventFor(previous, t);
      if (event && this.deps.nodes) {
        this.inBackground(this.deps.nodes.recordEvent(t.after.nodename, event, { signal: this.loop.signal }).catch((err: unknown) => this.deps.log.warn("cannot record a node event", { node: t.after.nodename, err: (err as Error).message })));
      }
      previous = t.after;
    }
    return previous;
  }

  private startJob(entry: RepairEntry, kind: "drain" | "repair-command" | "success-command", work: (signal: AbortSignal) => Promise<void>): void {
    this.jobs.start(entry.index, kind, (signal) => work(signal).finally(() => this.wake()), (err) =>
      this.deps.log.error("repair job failed unexpectedly", { index: entry.index, kind, err: (err as Error).message }),
    );
  }

  /** Stops the entry's job, uncordons its node if kintsugi cordoned it, and removes it from the queue. */
  private dequeue(entry: RepairEntry): void {
    this.dequeuing.add(entry.index);
    const work = (async () => {
      await this.jobs.stop(entry.index);
      await this.uncordon(entry);
      const current = this.deps.entries.get(entry.index);
      if (current?.deleted) {
        const reason = isFinished(current) ? "dequeued after deletion was requested" : "dequeued after deletion was requested; its repair was stopped";
        this.deps.committed([this.deps.entries.dequeue(current, reason, this.deps.now(), RUNNER_ACTOR)]);
      }
      this.jobs.forget(entry.index);
    })()
      .catch((err: unknown) => this.deps.log.error("cannot dequeue a repair entry", { index: entry.index, err: (err as Error).message }))
      .finally(() => {
        this.dequeuing.delete(entry.index);
        this.wake();
      });
    this.inBackground(work);
  }

  private async uncordon(entry: RepairEntry): Promise<void> {
    if (entry.nodename !== "") await this.uncordonNode(entry.nodename, cordonOwner(entry.index));
  }

  private async uncordonNode(node: string, owner: string): Promise<void> {
    if (!this.deps.nodes) return;
    try {
      await this.deps.nodes.uncordon(node, owner, { signal: this.loop.signal });
    } catch (err) {
      this.deps.log.warn("cannot uncordon a node", { node, err: (err as Error).message });
    }
  }

  private inBackground(promise: Promise<void>): void {
    this.background.add(promise);
    void promise.finally(() => this.background.delete(promise));
  }
}
