import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";
import { AutoRepairPoller } from "../runner/auto-repair-poller.js";
import { HealthCheckRunner } from "../runner/health-check-runner.js";
import { RepairRunner } from "../runner/repair-runner.js";
import { SILENT_LOG } from "../support/log.js";
import { openSqliteStore } from "../store/kv/sqlite/open-sqlite-store.js";
import { SimCommands } from "./sim-commands.js";
import { drawConfig, loadSimConfig } from "./sim-config-file.js";
import { longestChainMs, SIM_HEALTH_CHECK, simConstraints, simRepairConfig, type SimSettings } from "./sim-config.js";
import { ALL_FAULTS, SimFaults } from "./sim-faults.js";
import { EscalationInvariants } from "./sim-escalation.js";
import { SafetyInvariants, type Violation } from "./sim-invariants.js";
import { SimNodes, SimSabakan } from "./sim-kube.js";
import { LivenessInvariants } from "./sim-liveness.js";
import { simRandom } from "./sim-random.js";
import { SimGeneration } from "./sim-generation.js";
import { SimWorld } from "./sim-world.js";
import { settle } from "./settle.js";
import { violationReport, type SimReport } from "./sim-report.js";
import { countKinds, refusedReport, scratchRoot, type SimOptions } from "./sim-options.js";

export type { SimOptions } from "./sim-options.js";

const START = Date.UTC(2026, 0, 1);

/**
 * Runs the real runner, sabakan poller and health checks on the real SQLite store, against a simulated data center
 * on a virtual clock, with faults and operators drawn from `seed`; checks the invariants after every pass and
 * stops at the first violation. The last quarter of the time has no faults: every entry must then finish.
 */
export async function simulate(options: SimOptions): Promise<SimReport> {
  const random = simRandom(options.seed);
  const passMs = (options.passSeconds ?? 30) * 1000;
  const drawn: SimSettings = { maxConcurrentRepairs: random.int(1, 3), ...(random.chance(0.4) && { proof: { requires: ["node_ready"], dwellSeconds: 120 } }) };
  let settings: SimSettings = { ...drawn, ...options.settings };
  const file = options.drawConfig ? drawConfig(simRandom((options.seed ^ 0x2545f491) >>> 0)) : null;
  if (file) {
    const { proof: _drawnInCode, ...rest } = settings;
    settings = file.proof ? { ...rest, proof: file.proof } : rest;
  }
  const loaded = file ? loadSimConfig(settings, file.sections) : { ok: true as const, repair: simRepairConfig(settings) };
  if (!loaded.ok) return refusedReport(options, settings, loaded.refused);
  const repair = loaded.repair;
  const withSabakan = file?.sections.sabakan ?? true;
  let clock = START;
  const now = () => clock;
  const perRack = 20;
  const world = new SimWorld(options.machines, perRack, random.chance(0.5) ? 3 : 5, Math.floor(options.machines / 20), clock);
  const dir = mkdtempSync(join(scratchRoot(), "kintsugi-sim-"));
  const safety = new SafetyInvariants(world);
  const store = await openSqliteStore({ path: join(dir, "sim.db"), initialConstraints: simConstraints(options.machines) });
  let activity = 0;
  let generation: SimGeneration | null = null;
  store.onCommit((commit) => {
    activity++;
    for (const change of commit.entries) safety.committed(change);
    if (commit.generation) generation?.invariants.committed(commit.generation);
  });
  await store.settings.setAutoRepairEnabled(true);
  const commands = new SimCommands(world, random.fork(), now, { fail: 0.1, hang: 0.05, lateBoot: 0.25 });
  const nodes = new SimNodes(world);
  const sabakan = new SimSabakan(world, now);
  const chainMs = longestChainMs(repair, passMs);
  const liveness = new LivenessInvariants(world, chainMs);
  const jitter = random.fork();
  if (options.generation !== undefined && withSabakan) {
    const stream = simRandom((options.seed ^ 0x6a09e667) >>> 0);
    generation = new SimGeneration(world, store, sabakan, nodes, now, stream, options.generation);
  }
  const generationRun = generation;
  const build = () => ({
    runner: new RepairRunner({
      entries: store.entries,
      settings: store.settings,
      holds: store.holds,
      repair,
      commands,
      nodes,
      // With generation, as serve wires it: the configuration in force's control planes (the template takes them from
      // the machines the world labels as control planes, so the runner protects the same machines either way).
      generatedControlPlanes: generationRun ? () => store.generations.controlPlaneAddresses() : () => world.controlPlaneAddresses(),
      now,
      random: jitter.next,
      log: SILENT_LOG,
      intervalMs: passMs,
      healthCheckConcurrency: 8,
      ...(withSabakan && { machines: sabakan }),
    }),
    poller: new AutoRepairPoller({ store, machines: sabakan, nodes, now, log: SILENT_LOG, repair }),
    health: new HealthCheckRunner({
      checks: [SIM_HEALTH_CHECK],
      repair,
      nodes,
      machines: sabakan,
      store,
      now,
      log: SILENT_LOG,
      intervalMs: passMs,
      changed: () => {},
    }),
  });
  let workers = build();
  const escalation = repair.escalation ? new EscalationInvariants(store, repair.escalation) : null;
  let restarts = 0;
  const faults = new SimFaults(world, store, sabakan, random.fork(), options.faults ?? ALL_FAULTS, async () => {
    await Promise.all([workers.runner.stop(), workers.poller.stop(), workers.health.stop()]);
    await generationRun?.restart();
    workers = build();
    restarts++;
  });
  if (generationRun) {
    generationRun.log = faults.log;
    await generationRun.start(clock);
  }
  if (escalation) faults.onRelease = (address, at) => escalation.released(address, at);
  // Healthy as the operation judges it: with success_requires node_ready, a node must be Ready too (that signal
  // does not apply to a machine that is not a node).
  // Likewise sabakan_healthy (sabakan must say HEALTHY); boot_id_changed is not modelled here, so an operation that
  // asks for it is never judged healthy by the invariant (its repairs are not checked against it).
  const needsReady = settings.proof?.requires.includes("node_ready") ?? false;
  const needsSabakan = settings.proof?.requires.includes("sabakan_healthy") ?? false;
  const needsBoot = settings.proof?.requires.includes("boot_id_changed") ?? false;
  commands.onHealth = (address, healthy) => {
    const m = world.at(address);
    const proven = (!needsReady || m?.node === null || m?.ready === true) && (!needsSabakan || m?.state === "HEALTHY") && !needsBoot;
    safety.healthAnswered(address, healthy && proven);
  };
  commands.onStart = (s) => safety.disruptionStarts(`${s.kind} command`, s.address, store.holds.list(), clock);
  nodes.onCordon = (m) => safety.disruptionStarts("cordon", m.address, store.holds.list(), clock);
  const quiet = () => settle(() => activity);

  const endFaults = START + options.hours * 3_600_000;
  let end = endFaults + Math.max((options.hours * 3_600_000) / 3, 2 * chainMs);
  let passes = 0;
  let faultCount = 0;
  let violation: Violation | null = null;
  let nextPoll = START;
  const intake = async (work: () => Promise<unknown>, answer: () => SabakanMachine[] | null) => {
    const before = new Set(store.entries.list().map((e) => e.index));
    sabakan.lastAnswer = [];
    await work();
    await quiet();
    const all = store.entries.list();
    const added = all.filter((e) => !before.has(e.index));
    const c = store.settings.constraints();
    safety.afterIntake({
      added,
      total: all.length,
      cap: c.maximumRepairQueueEntries,
      rackLimit: c.maximumUnhealthyMachinesPerRack,
      answer: answer(),
      rebootWaitSeconds: c.waitSecondsToRepairRebooting,
      now: clock,
    });
  };
  try {
    while (clock < end && violation === null) {
      clock += passMs;
      commands.advanceTo(clock);
      world.refresh(clock);
      await quiet();
      if (clock < endFaults) {
        faultCount += await faults.step(clock, passMs);
        await generationRun?.step(clock, passMs);
      } else if (clock - passMs < endFaults) {
        await faults.stop(clock);
        await generationRun?.faultsStop();
        liveness.restartClocks(clock);
        // Every entry left must finish: the queue drains max_concurrent_repairs at a time, a chain of timeouts each.
        const left = store.entries.list().filter((e) => !isFinished(e)).length;
        end = Math.max(end, clock + chainMs * (2 + Math.ceil(left / repair.maxConcurrentRepairs)));
      }
      world.refresh(clock);
      await quiet();
      if (withSabakan && clock >= nextPoll) {
        nextPoll = clock + 60_000;
        escalation?.pollStarts();
        await intake(
          () => workers.poller.runNow(),
          () => sabakan.lastAnswer,
        );
        await escalation?.pollEnded(clock);
      }
      if (generationRun) {
        await generationRun.maybeRound(clock);
        await quiet();
      }
      await intake(
        () => workers.health.evaluateNow(),
        () => null,
      );
      safety.passStarts();
      await workers.runner.passNow();
      await quiet();
      passes++;
      const entries = store.entries.list();
      safety.afterPass({
        now: clock,
        entries,
        jobOf: (i) => workers.runner.jobs.kindOf(i),
        commandsRunning: commands.runningAddresses(),
        maxConcurrentRepairs: repair.maxConcurrentRepairs,
      });
      const livenessView = {
        now: clock,
        entries,
        waitingFor: (i: number) => workers.runner.waitingFor(i),
        queueEnabled: store.settings.repairQueueEnabled(),
        holds: store.holds.list(),
        maxConcurrentRepairs: repair.maxConcurrentRepairs,
        controlPlaneCount: store.settings.constraints().controlPlaneCount,
      };
      violation = safety.violation ?? escalation?.violation ?? generationRun?.invariants.violation ?? liveness.check(livenessView, clock >= end);
    }
    if (violation === null) {
      for (const e of store.entries.list()) safety.history(e, await store.entries.history(e.index));
      violation = safety.violation;
    }
    const checked = new Map([...safety.checked, ...liveness.checked, ...(escalation?.checked ?? []), ...(generationRun?.invariants.checked ?? [])]);
    const report: SimReport = {
      seed: options.seed,
      machines: options.machines,
      hours: options.hours,
      settings,
      passes,
      faults: faultCount,
      restarts,
      entries: store.entries.list().length,
      finished: store.entries.list().filter((e: RepairEntry) => isFinished(e)).length,
      checked,
      violation: null,
      details: null,
      faultKinds: countKinds(faults.log.map((f) => f.kind)),
      refused: null,
    };
    if (!violation) return report;
    return { ...report, violation, details: await violationReport(violation, store, faults.log) };
  } finally {
    await Promise.all([workers.runner.stop(), workers.poller.stop(), workers.health.stop(), generationRun?.stop()]);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
