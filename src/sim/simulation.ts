import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import { isWaitingForBackoff } from "../domain/queue/drain-backoff.js";
import { isHoldActive } from "../domain/holds/machine-holds.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";
import { openSqliteStore } from "../store/kv/sqlite/open-sqlite-store.js";
import { ESCALATION_ACTOR } from "../runner/escalation-holds.js";
import { Checks } from "./sim-checks.js";
import { SimCommands } from "./sim-commands.js";
import { CommitInvariants } from "./sim-commit-checks.js";
import { drawConfig, loadSimConfig } from "./sim-config-file.js";
import { checkReplay, escalationActed, type EvaluationTruth } from "./sim-replay-checks.js";
import { longestChainMs, simConstraints, simHealthCheck, simRepairConfig, type ConfigVariant, type SimSettings } from "./sim-config.js";
import { DisruptionInvariants } from "./sim-disruptions.js";
import { EscalationInvariants } from "./sim-escalation.js";
import { CLASSIC_FAULTS, FULL_FAULTS, SimFaults } from "./sim-faults.js";
import { IntakeInvariants } from "./sim-intake-checks.js";
import { PassInvariants } from "./sim-invariants.js";
import { SimKintsugi, type FailoverMode } from "./sim-kintsugi.js";
import { FenceInvariants } from "./sim-fence-checks.js";
import { SimNodes, SimSabakan } from "./sim-kube.js";
import { LivenessInvariants } from "./sim-liveness.js";
import { CLASSIC_MODEL, describeModel, drawModel } from "./sim-model.js";
import { PacingInvariant } from "./sim-pacing-check.js";
import { simRandom } from "./sim-random.js";
import { SimGeneration } from "./sim-generation.js";
import { SimWorld } from "./sim-world.js";
import { etcdGoodForRepair } from "./sim-truth.js";
import { settle } from "./settle.js";
import { violationReport, type SimReport } from "./sim-report.js";
import { countKinds, refusedReport, scratchRoot, type SimOptions } from "./sim-options.js";

export type { SimOptions } from "./sim-options.js";

function trace(t: NonNullable<SimOptions["trace"]>, elapsed: number, entries: readonly RepairEntry[], kintsugi: SimKintsugi, commands: SimCommands): void {
  const minute = elapsed / 60_000;
  if (minute < t.from || minute > t.to) return;
  const running = commands.runningAddresses();
  t.print(`+${minute} min:`);
  for (const e of entries) {
    if (isFinished(e)) continue;
    const job = kintsugi.runner.jobs.kindOf(e.index);
    const wait = kintsugi.runner.waitingFor(e.index);
    t.print(
      `  entry ${e.index} ${e.address} ${e.status}/${e.step}/${e.stepStatus}${e.deleted ? " deleted" : ""} job ${job}${running.has(e.address) ? " (command running)" : ""}: ${wait?.message ?? "-"}`,
    );
  }
}

const START = Date.UTC(2026, 0, 1);
/** How long no entry may change, once faults stop, before a run is settled (longer than CKE's reboot wait, 1800 s). */
const SETTLED_MS = 40 * 60_000;

/**
 * Runs the real runner, sabakan poller and health checks on the real SQLite store, against a simulated data center
 * on a virtual clock, with faults and operators drawn from `seed`; checks the invariants at every pass, command,
 * cordon, intake and commit, and stops at the first violation. The last quarter of the time has no faults: every
 * entry must then finish.
 */
export async function simulate(options: SimOptions): Promise<SimReport> {
  const random = simRandom(options.seed);
  const passMs = (options.passSeconds ?? 30) * 1000;
  const model = options.model === "classic" ? CLASSIC_MODEL : drawModel(simRandom((options.seed ^ 0x9e3779b9) >>> 0));
  const drawn: SimSettings = { maxConcurrentRepairs: random.int(1, 3), ...(random.chance(0.4) && { proof: { requires: ["node_ready"], dwellSeconds: 120 } }) };
  const modelled: SimSettings = model.full
    ? {
        maxConcurrentRepairs: drawn.maxConcurrentRepairs,
        ...(model.proof && { proof: model.proof }),
        ...(model.escalation && { escalation: model.escalation }),
      }
    : drawn;
  let settings: SimSettings = { ...modelled, ...options.settings };
  const file = options.drawConfig ? drawConfig(simRandom((options.seed ^ 0x2545f491) >>> 0)) : null;
  if (file) {
    const { proof: _drawnInCode, ...rest } = settings;
    settings = file.proof ? { ...rest, proof: file.proof } : rest;
  }
  const loaded = file ? loadSimConfig(settings, file.sections, model) : { ok: true as const, repair: simRepairConfig(settings, model) };
  if (!loaded.ok) return refusedReport(options, settings, loaded.refused, describeModel(model));
  const configs = (variant: ConfigVariant) => (variant === "base" ? loaded.repair : simRepairConfig(settings, model, variant));
  const withSabakan = file?.sections.sabakan ?? true;
  let clock = START;
  const now = () => clock;
  const world = new SimWorld(options.machines, 20, random.chance(0.5) ? 3 : 5, Math.floor(options.machines / 20), clock);
  world.rebootsUnreachable = model.rebootsUnreachable;
  const dir = mkdtempSync(join(scratchRoot(), "kintsugi-sim-"));
  const store = await openSqliteStore({ path: join(dir, "sim.db"), initialConstraints: simConstraints(options.machines) });
  await store.settings.setAutoRepairEnabled(true);
  // The whole model's cluster has as many control planes as control-plane-count says (CKE's generation keeps it so).
  if (model.full) await store.settings.setConstraints({ controlPlaneCount: world.controlPlaneAddresses().length });
  const commands = new SimCommands(world, random.fork(), now, { fail: 0.1, hang: 0.05, lateBoot: 0.25 });
  const nodes = new SimNodes(world, now, model.full ? simRandom((options.seed ^ 0x85ebca6b) >>> 0) : null);
  const sabakan = new SimSabakan(world, now);
  const jitter = random.fork();
  let generation: SimGeneration | null = null;
  if (options.generation !== undefined && withSabakan) {
    const stream = simRandom((options.seed ^ 0x6a09e667) >>> 0);
    generation = new SimGeneration(world, store, sabakan, nodes, now, stream, options.generation);
  }
  const generationRun = generation;
  const kintsugi = new SimKintsugi(
    {
      store,
      commands,
      nodes,
      sabakan,
      withSabakan,
      healthCheck: simHealthCheck(model),
      // With generation, as serve wires it: the configuration in force's control planes (the template takes them from
      // the machines the world labels as control planes, so the runner protects the same machines either way).
      controlPlanes: generationRun ? () => store.generations.controlPlaneAddresses() : () => world.controlPlaneAddresses(),
      now,
      random: jitter.next,
      passMs,
      asServe: model.full,
      fenceMarginSeconds: model.full ? model.inheritedCommandMarginSeconds : null,
    },
    loaded.repair,
  );
  const checks = new Checks();
  const pass = new PassInvariants(checks, world);
  const holdsTurn = (e: RepairEntry, address: string) =>
    e.address !== address &&
    world.at(e.address)?.role === "control-plane" &&
    e.status === "processing" &&
    !e.deleted &&
    (e.stepStatus === "draining" || e.stepStatus === "watching") &&
    !isWaitingForBackoff(e, clock) &&
    kintsugi.runner.jobs.kindOf(e.index) !== "success-command" &&
    !["CONTROL_PLANE", "HOLD", "BACKOFF"].includes(kintsugi.runner.waitingFor(e.index)?.kind ?? "");
  const disruptions = new DisruptionInvariants(
    checks,
    world,
    store,
    settings.proof,
    now,
    (a) => commands.runningAddresses().has(a),
    (a) =>
      store.entries
        .list()
        .filter((e) => holdsTurn(e, a))
        .map((e) => e.index),
  );
  const pacing =
    model.pacing &&
    new PacingInvariant(
      checks,
      world,
      model.pacing,
      (a) => kintsugi.racks.rackOf(a),
      () => kintsugi.repair.maxConcurrentRepairs,
      (i) => disruptions.answerOf(i)?.proven === true,
    );
  const commits = new CommitInvariants(checks, disruptions, () => kintsugi.repair, now, pacing || null);
  const intakes = new IntakeInvariants(checks, world, store, settings.escalation);
  const fence = new FenceInvariants(checks, (a) => commands.runningOn(a));
  const escalation = settings.escalation ? new EscalationInvariants(store, settings.escalation) : null;
  let activity = 0;
  let lastEntryChange = START;
  store.onCommit((commit) => {
    activity++;
    if (commit.entries.length > 0) lastEntryChange = clock;
    kintsugi.committed(commit);
    for (const change of commit.entries) {
      pass.committed(change.entry.index, change.previous === null, change.entry.deleted, change.entry.address);
      commits.committed(change);
      fence.committed(change);
    }
    if (commit.generation) generationRun?.invariants.committed(commit.generation);
  });
  commands.onHealth = (address, healthy, entryIndex) => {
    fence.healthChecked(address, entryIndex);
    disruptions.healthAnswered(address, healthy, entryIndex);
  };
  commands.onStart = (start) => {
    fence.commandStarts(start);
    disruptions.command(start);
    commits.commandStarted(start);
  };
  commands.onEnd = (start, outcome) => commits.commandEnded(start, outcome);
  nodes.onCordon = (m, owner) => {
    const entryIndex = /^repair-entry-(\d+)$/.test(owner) ? Number(owner.slice(13)) : null;
    fence.cordons(m.address, entryIndex);
    disruptions.cordon(m, entryIndex);
  };
  // When escalation first acted (a hold, its operation, a machine skipped as escalated) or the repair procedures
  // changed: the in-force replay's horizon (the records carry neither).
  let unrecordedFrom: number | null = null;
  const failover = async (variant?: ConfigVariant, mode?: FailoverMode) => {
    const before = kintsugi.repair.maxConcurrentRepairs;
    if (variant && unrecordedFrom === null) unrecordedFrom = clock;
    const orphans = await kintsugi.failover(variant && configs(variant), mode);
    await generationRun?.restart();
    if (kintsugi.repair.maxConcurrentRepairs < before) pass.configChanged(before);
    return orphans;
  };
  const stopBeforeStart = (instead: (entryIndex: number, at: number) => void) => {
    if (kintsugi.stopBeforeStart !== null) return false;
    kintsugi.stopBeforeStart = instead;
    return true;
  };
  const operations = () => kintsugi.repair.repairProcedures.flatMap((p) => p.repairOperations.map((o) => o.operation));
  const faults = new SimFaults(
    world,
    store,
    random.fork(),
    options.faults ?? (model.full ? FULL_FAULTS : CLASSIC_FAULTS),
    { sabakan, nodes, commands, failover, operations, stopBeforeStart },
    model.healthPaused,
  );
  if (generationRun) {
    generationRun.log = faults.log;
    await generationRun.start(clock);
  }
  if (escalation) faults.operators.onRelease = (address, at) => escalation.released(address, at);
  const quiet = () => settle(() => activity);
  const chainMs = longestChainMs(loaded.repair, passMs);
  const liveness = new LivenessInvariants(world, chainMs);

  const endFaults = START + options.hours * 3_600_000;
  let end = endFaults + Math.max((options.hours * 3_600_000) / 3, 2 * chainMs);
  let passes = 0;
  let faultCount = 0;
  let nextPoll = START;
  // What each health-check evaluation ran under that its record does not keep, for the replay's invariants.
  const evaluations = new Map<number, EvaluationTruth>();
  const intake = async (source: "sabakan" | "health-check", work: () => Promise<unknown>) => {
    if (source === "health-check")
      evaluations.set(clock, { rackLimit: store.settings.constraints().maximumUnhealthyMachinesPerRack, sabakanUp: !sabakan.down });
    const before = store.entries.list();
    const known = new Set(before.map((e) => e.index));
    const escalationHolds = () =>
      store.holds
        .list()
        .filter((h) => h.setBy === ESCALATION_ACTOR)
        .map((h) => h.address);
    const heldBefore = new Set(escalationHolds());
    sabakan.lastAnswer = [];
    await work();
    await quiet();
    const all = store.entries.list();
    const c = store.settings.constraints();
    const check = simHealthCheck(model);
    const added = all.filter((e) => !known.has(e.index));
    const escalationHeld = escalationHolds().filter((a) => !heldBefore.has(a));
    if (unrecordedFrom === null && settings.escalation) {
      const outcome = source === "sabakan" ? (await store.outcomes.last(1))[0] : undefined;
      if (escalationActed(settings.escalation.operation, { held: escalationHeld, added, outcome })) unrecordedFrom = clock;
    }
    intakes.afterIntake({
      source,
      before,
      added,
      escalationHeld,
      total: all.length,
      cap: c.maximumRepairQueueEntries,
      rackLimit: c.maximumUnhealthyMachinesPerRack,
      answer: source === "sabakan" ? (sabakan.lastAnswer as readonly SabakanMachine[]) : null,
      rebootWaitSeconds: c.waitSecondsToRepairRebooting,
      check,
      paused: store.settings.healthCheckPaused(check.name) ?? check.paused,
      now: clock,
    });
  };
  const violation = () => checks.violation ?? escalation?.violation ?? generationRun?.invariants.violation ?? null;
  try {
    while (clock < end && violation() === null) {
      clock += passMs;
      commands.advanceTo(clock);
      world.refresh(clock);
      await quiet();
      if (clock < endFaults) {
        faultCount += await faults.step(clock, passMs);
        await generationRun?.step(clock, passMs);
      } else if (clock - passMs < endFaults) {
        await faults.stop(clock);
        kintsugi.stopBeforeStart = null;
        await generationRun?.faultsStop();
        liveness.restartClocks(clock);
        // Every entry left must finish: the queue drains max_concurrent_repairs at a time, a chain of timeouts each.
        const left = store.entries.list().filter((e) => !isFinished(e)).length;
        end = Math.max(end, clock + chainMs * (2 + Math.ceil(left / kintsugi.repair.maxConcurrentRepairs)));
      }
      world.refresh(clock);
      await quiet();
      if (withSabakan && clock >= nextPoll) {
        nextPoll = clock + 60_000;
        escalation?.pollStarts();
        await intake("sabakan", () => kintsugi.poller.runNow());
        await escalation?.pollEnded(clock);
      }
      if (generationRun) {
        await generationRun.maybeRound(clock);
        await quiet();
      }
      await intake("health-check", () => kintsugi.health.evaluateNow());
      disruptions.passStarts();
      const deletedBefore = new Set(
        store.entries
          .list()
          .filter((e) => e.deleted)
          .map((e) => e.index),
      );
      const queueEnabled = store.settings.repairQueueEnabled();
      const refusedBefore = nodes.uncordonsRefused;
      const apiUp = nodes.errorRate === 0;
      const etcdGood = etcdGoodForRepair(world, store.settings.constraints().controlPlaneCount);
      const passWorked = await kintsugi.runner.passNow().then(
        () => true,
        () => false,
      );
      await quiet();
      // A pass in which the API failed or refused an uncordon leaves a cordon for the next one to lift.
      const kubernetesAnswered = apiUp && nodes.uncordonsRefused === refusedBefore;
      passes++;
      const entries = store.entries.list();
      const jobs = kintsugi.runner.jobs;
      pass.afterPass({
        now: clock,
        entries,
        jobOf: (i) => jobs.kindOf(i),
        finishing: (i) =>
          jobs.kindOf(i) === "success-command" || (disruptions.answerOf(i)?.proven === true && kintsugi.runner.waitingFor(i)?.kind === "COMMAND"),
        commandsRunning: commands.runningAddresses(),
        repair: kintsugi.repair,
        queueEnabled,
        passWorked,
        kubernetesAnswered,
        deletedBefore,
        fenceMarginSeconds: model.full ? model.inheritedCommandMarginSeconds : null,
        etcdGood,
        waitingFor: (i) => kintsugi.runner.waitingFor(i),
        held: (address) => store.holds.list().some((h) => h.address === address && isHoldActive(h, clock)),
      });
      if (options.trace) trace(options.trace, clock - START, entries, kintsugi, commands);
      const pending = faults.takePendingFailover();
      if (pending) await failover(undefined, pending);
      const livenessView = {
        now: clock,
        entries,
        waitingFor: (i: number) => kintsugi.runner.waitingFor(i),
        jobOf: (i: number) => kintsugi.runner.jobs.kindOf(i),
        queueEnabled: store.settings.repairQueueEnabled(),
        holds: store.holds.list(),
        maxConcurrentRepairs: kintsugi.repair.maxConcurrentRepairs,
        controlPlaneCount: store.settings.constraints().controlPlaneCount,
      };
      // Settled: faults stopped, no entry unfinished, no command running, and no entry changed for longer than a
      // Node takes to be enqueued (a health check's timeout, CKE's reboot wait): nothing can happen any more.
      const settled = clock > endFaults && commands.nextEnd() === null && clock - lastEntryChange >= SETTLED_MS && entries.every((e) => isFinished(e));
      if (violation() === null) {
        const stuck = liveness.check(livenessView, clock >= end || settled);
        if (stuck) checks.fail(stuck);
      }
      if (settled) break;
    }
    if (violation() === null)
      await checkReplay(checks, store, simHealthCheck(model), kintsugi.repair, {
        evaluations,
        rackOf: (address) => world.at(address)?.rack ?? null,
        unrecordedFrom,
      });
    const report: SimReport = {
      seed: options.seed,
      machines: options.machines,
      hours: options.hours,
      settings,
      model: describeModel(model),
      passes,
      faults: faultCount,
      restarts: kintsugi.restarts,
      entries: store.entries.list().length,
      finished: store.entries.list().filter((e: RepairEntry) => isFinished(e)).length,
      checked: checks.merged(liveness.checked, escalation?.checked ?? new Map(), generationRun?.invariants.checked ?? new Map()),
      violation: null,
      details: null,
      faultKinds: countKinds(faults.log.map((f) => f.kind)),
      refused: null,
    };
    const found = violation();
    if (!found) return report;
    return { ...report, violation: found, details: await violationReport(found, store, faults.log) };
  } finally {
    await Promise.all([kintsugi.stop(), generationRun?.stop()]);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
