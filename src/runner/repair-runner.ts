import { controlPlanesOf } from "../domain/queue/control-planes.js";
import { activeHolds, annotationHolds, type MachineHold } from "../domain/holds/machine-holds.js";
import { isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import { RUNNER_ACTOR } from "../domain/queue/repair-history.js";
import { pacingReport, type DomainPacing } from "../domain/pacing/repair-pacing-report.js";
import { cordonOwner, strayCordons } from "../domain/queue/stray-cordons.js";
import { CORDONED_BY_ANNOTATION } from "../adapters/ports.js";
import { snapshotRepairConfig, type RepairAction, type RepairEffect } from "../domain/queue/repair-plan.js";
import type { WaitingFor } from "../domain/queue/repair-wait.js";
import { EntryCommits } from "./entry-commits.js";
import { decideOnFreshHealth } from "./fresh-health-decision.js";
import { gatherObservations, type GatherDeps } from "./gather-state.js";
import { HealthVerdicts } from "./health-verdicts.js";
import { HoldWatch } from "./hold-watch.js";
import { JobRegistry } from "./job-registry.js";
import { pacingInputOf } from "./pacing-ledger.js";
import { diagnosticsJob, drainJob, repairCommandJob, successCommandJob } from "./repair-jobs.js";
import { OutageLog } from "./outage-log.js";
import { PassLoop } from "./pass-loop.js";
import { RepairWaits } from "./repair-waits.js";
import { earlierWake, holdsForPass } from "./stored-holds.js";
import type { RunnerDeps } from "./runner-deps.js";

/**
 * Works the repair queue: each pass gathers state, lets `decideRepairActions` decide, commits each action's
 * transitions in one write each (awaited: no effect starts before its transitions are stored, and none for an entry
 * that changed meanwhile) and then performs the effects. Passes never overlap; one runs right after any
 * wake-up (a mutation, a finished job, a Node change), at the decision's `wakeAt`, and at least every `intervalMs`.
 * Drains and commands run as jobs beside the passes, so a slow command never holds up other entries, the API or
 * health checks.
 */
export class RepairRunner {
  readonly jobs = new JobRegistry();
  private readonly holdWatch = new HoldWatch();
  private readonly background = new Set<Promise<void>>();
  private readonly dequeuing = new Set<number>();
  private readonly loop: PassLoop<void, number | null>;
  private started = false;
  private unwatch: (() => void) | null = null;
  private annotated: readonly MachineHold[] = [];
  /** The control planes the last pass found without the turn: pacing does not count them in progress. */
  private yielded: ReadonlySet<number> = new Set();
  private readonly waits: RepairWaits;
  private readonly commits: EntryCommits;
  private readonly verdicts: HealthVerdicts;
  /** The uncordons under way: a drain waits for them before it cordons its node. */
  private readonly uncordoning = new Set<Promise<void>>();

  constructor(private readonly deps: RunnerDeps) {
    this.waits = new RepairWaits(deps.settings, deps.log, deps.now);
    this.verdicts = new HealthVerdicts(deps.healthVerdictMs ?? deps.intervalMs, deps.now);
    this.commits = new EntryCommits(deps, { dequeuing: this.dequeuing, inBackground: (work) => this.inBackground(work), signal: () => this.loop.signal });
    // Kubernetes or the store down fails every pass: said once, reminded, and said again when a pass works.
    const outage = new OutageLog("the repair pass", deps.log, deps.now, "error");
    this.loop = new PassLoop<void, number | null>({
      pass: async (_trigger, signal) => {
        const wakeAt = await this.pass(signal);
        outage.worked();
        return wakeAt;
      },
      now: deps.now,
      merge: () => undefined,
      onError: (err) => outage.failed(err),
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
   * Stops passes, ends the Kubernetes calls and health checks in flight (shutdown never waits on them), stops every
   * job (killing their commands), and waits for everything to settle. Everything is aborted before anything is
   * waited for: a slow pass never delays the kill of a running command.
   */
  async stop(): Promise<void> {
    this.halt();
    await this.loop.stop();
    await this.jobs.stopAll();
    await Promise.all(this.background);
  }

  /**
   * Aborts at once, without waiting: the pass in flight (its health checks), every job and its command, and every
   * job a pass would still start. What a term does the instant it is deposited; `stop` then waits for it all.
   */
  halt(): void {
    this.started = false;
    this.unwatch?.();
    this.unwatch = null;
    this.jobs.close();
    void this.loop.stop();
  }

  /**
   * One pass now (after the one in flight, if any), without the timer or a wake-up: the seam by which a driver with
   * its own clock (the simulator) runs passes. Resolves with when the pass asked to look again (null: the interval).
   */
  passNow(): Promise<number | null> {
    return this.loop.run(undefined);
  }

  /** How many passes have completed (for tests and benchmarks). */
  get passCount(): number {
    return this.loop.passCount;
  }

  /** Why the last pass left the entry where it is (a rule held it), or null when it moved or nothing held it. */
  waitReason(index: number): string | null {
    return this.waits.waitReason(index);
  }

  /** What the entry waits for after the last pass: a rule's hold, else its own step's wait; null when nothing. */
  waitingFor(index: number): WaitingFor | null {
    return this.waits.waitingFor(index);
  }

  /** The holds the last pass read from the Nodes' hold annotations. */
  annotationHolds(): readonly MachineHold[] {
    return this.annotated;
  }

  /** Each domain value's allowance and repairs in progress; null when pacing is off. */
  pacingState(): DomainPacing[] | null {
    const entries = this.deps.entries.list();
    const input = pacingInputOf(this.deps, entries);
    return input && pacingReport(input, entries, this.deps.repair.maxConcurrentRepairs, this.deps.now(), this.yielded);
  }

  /** One pass; returns when to look again at the latest (null: at the interval). */
  private async pass(signal: AbortSignal): Promise<number | null> {
    const { deps } = this;
    // Before the entries: a job that ends after this committed its outcome first, so the entries read next show it
    // (a command marker of this process with no job is then one whose outcome was never recorded).
    const jobKinds = this.jobs.kinds();
    const entries = deps.entries.list();
    await deps.bmcs?.lookUp(
      entries.filter((e) => !e.deleted && !isFinished(e)).map((e) => e.address),
      deps.machines ?? null,
      deps.now(),
      deps.log.warn.bind(deps.log),
    );
    const gather: GatherDeps = {
      repair: deps.repair,
      commands: deps.commands,
      nodes: deps.nodes,
      jobs: this.jobs,
      jobKinds,
      healthCheckConcurrency: deps.healthCheckConcurrency,
      log: deps.log.warn.bind(deps.log),
      signal,
      machines: deps.machines ?? null,
      rackOf: (address) => deps.pacing?.racks.rackOf(address) ?? null,
      bmcOf: (address) => deps.bmcs?.bmcOf(address) ?? null,
      ...(deps.fence && { fence: { ...deps.fence, now: deps.now() } }),
      verdicts: this.verdicts,
    };
    const { observations, nodes, reused } = await gatherObservations(entries, gather);
    // Calls cut short by stop() leave the observations incomplete: decide nothing from them.
    if (signal.aborted) return null;
    const controlPlanes = controlPlanesOf(nodes, deps.generatedControlPlanes(), deps.nodes !== null, CORDONED_BY_ANNOTATION);
    const now = deps.now();
    const stored = await holdsForPass(deps.holds, now, deps.log);
    this.annotated = annotationHolds(nodes);
    const holds = activeHolds(stored.stored, this.annotated, now);
    this.holdWatch.update(holds);
    const pacing = pacingInputOf(deps, entries);
    const snapshot = {
      entries,
      observations,
      repair: snapshotRepairConfig(deps.repair),
      queueEnabled: deps.settings.repairQueueEnabled(),
      controlPlanes,
      controlPlaneCount: deps.settings.constraints().controlPlaneCount,
      holds,
      ...(pacing && { pacing }),
      ...(deps.fence && { fence: deps.fence }),
    };
    const plan = await decideOnFreshHealth(snapshot, now, deps.random, reused, gather);
    if (plan === null) return null;
    // Every action's transitions are committed before any effect starts, so the jobs started here cannot have
    // finished entries (and uncordoned their nodes themselves) by the time the stray cordons are judged.
    const applied: Array<[RepairAction, RepairEntry]> = [];
    let stray: Array<[string, string]>;
    try {
      for (const action of plan.actions) {
        const latest = await this.commits.commit(action.entry, action.transitions);
        // The entry changed since the pass read it (a deletion, another writer): what was decided on it no longer holds.
        if (latest !== null) applied.push([action, latest]);
      }
      this.waits.record(plan);
      this.yielded = plan.yielded ?? new Set();
      // Read again: the actions just committed may have finished entries whose nodes are among these.
      stray = strayCordons(nodes, deps.entries.list(), CORDONED_BY_ANNOTATION, this.yielded);
    } finally {
      // What was committed gets its effect even when a later commit failed (the pass then fails with that error).
      for (const [action, latest] of applied) this.startEffect(action.effect, latest);
    }
    for (const [node, owner] of stray) this.inBackground(this.uncordonNode(node, owner));
    await this.waits.publish();
    // A hold that ends by itself lets its entries start then, not at the next safety tick.
    return earlierWake(plan.wakeAt, stored.nextEnd);
  }

  /** Performs what an action does once its transitions are committed; `latest` is the entry after them. */
  private startEffect(effect: RepairEffect, latest: RepairEntry): void {
    const index = latest.index;
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
          // As CKE, which uncordons the nodes it cordoned before it starts any repair (server/strategy.go): a node
          // kintsugi is uncordoning is schedulable again before another is cordoned.
          // A drain stopped meanwhile (its entry deleted) ends here, without waiting for the uncordon to answer.
          await unlessAborted(Promise.all(this.uncordoning), signal);
          if (signal.aborted) return;
          const result = await drainJob(this.deps, this.commits.commitIfUnchanged, latest, signal);
          if (result === "started") this.jobs.markDrainDone(index, latest.lastTransitionTime);
          else if (result) await this.uncordon(result.after);
        });
      case "repair-command":
        return this.startJob(latest, "repair-command", async (signal) => {
          const t = await repairCommandJob({
            deps: this.deps,
            commit: this.commits.commitIfUnchanged,
            entry: latest,
            step: effect.step,
            untilReleased: this.holdWatch.untilReleased,
            signal,
          });
          if (t && isFinished(t.after)) await this.uncordon(t.after);
        });
      case "diagnostics":
        return this.startJob(latest, "diagnostics", async (signal) => {
          await diagnosticsJob(this.deps, this.commits.commitIfUnchanged, latest, effect.operation, signal);
        });
      case "success-command":
        // CKE's health rule at every step: a machine healthy while its drain's eviction job runs succeeds, and the
        // drain stops first (the success then uncordons the node).
        return this.startJob(
          latest,
          "success-command",
          async (signal) => {
            const t = await successCommandJob(this.deps, this.commits.commitIfUnchanged, latest, effect.operation, signal);
            if (t) await this.uncordon(t.after);
          },
          this.jobs.kindOf(index) === "drain",
        );
    }
  }

  /** Starts the entry's job; `takeOver`: in place of the one running (aborted first, see JobRegistry.takeOver). */
  private startJob(
    entry: RepairEntry,
    kind: "drain" | "repair-command" | "success-command" | "diagnostics",
    work: (signal: AbortSignal) => Promise<void>,
    takeOver = false,
  ): void {
    // A job that failed (the store refused its write) is tried again at the next tick, as a failed pass is: woken at
    // once, a pass would start it again at once, running health checks in a loop for as long as the store refuses.
    const onError = (err: unknown) =>
      this.deps.log.error("repair job failed unexpectedly; retrying at the next tick", { index: entry.index, kind, err: (err as Error).message });
    const job = (signal: AbortSignal) => work(signal).then(() => this.wake());
    if (takeOver) this.jobs.takeOver(entry.index, kind, job, onError);
    else this.jobs.start(entry.index, kind, job, onError);
  }

  /** Stops the entry's job, uncordons its node if kintsugi cordoned it, and removes it from the queue. */
  private dequeue(entry: RepairEntry): void {
    this.dequeuing.add(entry.index);
    const work = (async () => {
      await this.jobs.stop(entry.index);
      await this.uncordon(entry);
      const reason = (current: RepairEntry) =>
        !current.deleted
          ? null
          : isFinished(current)
            ? "dequeued after deletion was requested"
            : "dequeued after deletion was requested; its repair was stopped";
      await this.deps.entries.dequeue(entry.index, reason, this.deps.now(), RUNNER_ACTOR);
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
    const nodes = this.deps.nodes;
    const uncordoning = (async () => {
      try {
        await nodes.uncordon(node, owner, { signal: this.loop.signal });
      } catch (err) {
        this.deps.log.warn("cannot uncordon a node", { node, err: (err as Error).message });
      }
    })();
    this.uncordoning.add(uncordoning);
    try {
      await uncordoning;
    } finally {
      this.uncordoning.delete(uncordoning);
    }
  }

  private inBackground(promise: Promise<void>): void {
    this.background.add(promise);
    void promise.finally(() => this.background.delete(promise));
  }
}

/** Settles when `work` does or `signal` aborts, whichever is first; its listener on `signal` goes with it. */
function unlessAborted(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    void work.then(done, done);
  });
}
