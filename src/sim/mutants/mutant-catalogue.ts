/**
 * One named rule mutation: in `file`, the text `find` (which must occur exactly once) becomes `replace`. Each breaks
 * one rule the simulator's invariants guard, as small a change as a slip in review would be; `npm run sim:mutants`
 * applies each to a scratch copy of the tree and runs the npm test sweep, which must catch every one.
 */
export interface Mutant {
  readonly name: string;
  /** The rule it breaks, in an operator's words. */
  readonly rule: string;
  /** The file it changes, from the repository's root. */
  readonly file: string;
  readonly find: string;
  readonly replace: string;
}

/** The rules the simulator was once blind to (or already caught) when its mutants were first run: each must stay caught. */
export const ISSUE_35_MUTANTS = [
  "queue-disabled-ignored",
  "rack-limit-off",
  "watch-ignored",
  "dwell-ignored",
  "two-entries-repair-one-machine",
  "drain-never-times-out",
  "trigger-repairs-a-machine-cke-reboots",
  "control-plane-turn-released-after-the-command",
  "health-check-ignores-cke-reboots",
  "holds-ignored",
  "escalation-release-ignored",
  "queued-machine-enqueued-again",
] as const;

const DECISION = "src/domain/queue/repair-decision.ts";
const TRIAGE = "src/domain/queue/entry-triage.ts";
const WALK = "src/domain/queue/contender-walk.ts";
const PROGRESS = "src/domain/queue/repair-progress.ts";
const INTAKE = "src/domain/intake/auto-repair-intake.ts";
const PLANES = "src/domain/queue/control-planes.ts";
const HEALTH_EVALUATION = "src/domain/health/health-check-evaluation.ts";
const REMEDIATION = "src/domain/health/health-check-remediation.ts";
const PROOF = "src/domain/queue/proof-judgement.ts";
const ENTRY_COMMAND = "src/domain/queue/entry-command.ts";

export const MUTANTS: readonly Mutant[] = [
  {
    name: "queue-disabled-ignored",
    rule: "nothing starts, and a drain stops, while the repair queue is disabled",
    file: DECISION,
    find: "    queueEnabled: snapshot.queueEnabled,\n",
    replace: "    queueEnabled: true,\n",
  },
  {
    name: "rack-limit-off",
    rule: "the sabakan trigger holds back a rack with more unhealthy machines than maximum-unhealthy-machines-per-rack",
    file: INTAKE,
    find: "const rackLimit = constraints.maximumUnhealthyMachinesPerRack;",
    replace: "const rackLimit = 0;",
  },
  {
    name: "watch-ignored",
    rule: "a step's watch runs for watch_seconds before the next step",
    file: PROGRESS,
    find: "const watchSeconds = config?.watchSeconds ?? 0;",
    replace: "const watchSeconds = 0;",
  },
  {
    name: "dwell-ignored",
    rule: "proof of repair holds for success_dwell_seconds before the entry succeeds",
    file: PROOF,
    find: "const dwellEnd = dwellStartedAt + proof.dwellSeconds * 1000;",
    replace: "const dwellEnd = dwellStartedAt;",
  },
  {
    name: "two-entries-repair-one-machine",
    rule: "one machine is never repaired by two entries at once",
    file: WALK,
    find: "    if (holder !== undefined) {\n      held.set(entry.index, waitForMachine(entry.address, holder));",
    replace: "    if (holder !== undefined && false) {\n      held.set(entry.index, waitForMachine(entry.address, holder));",
  },
  {
    name: "drain-never-times-out",
    rule: "a drain backs off once eviction_timeout_seconds have passed",
    file: PROGRESS,
    find: "return evictionDeadline(entry, ctx) < ctx.now ? timedOutDrain(entry, ctx, transitions) : null;",
    replace: "return null;",
  },
  {
    name: "trigger-repairs-a-machine-cke-reboots",
    rule: "the sabakan trigger leaves a machine CKE reboots alone for wait-seconds-to-repair-rebooting",
    file: INTAKE,
    find: 'if (standing === "rebooting") {',
    replace: "if (false) {",
  },
  {
    name: "control-plane-turn-released-after-the-command",
    rule: "a control plane keeps the one-control-plane turn while it watches after its command",
    file: PLANES,
    find: '  if (repairing)\n    return { rule: "one-at-a-time",',
    replace: '  if (repairing && repairing.stepStatus !== "watching")\n    return { rule: "one-at-a-time",',
  },
  {
    name: "health-check-ignores-cke-reboots",
    rule: "a health check leaves a Node CKE reboots alone for wait-seconds-to-repair-rebooting",
    file: HEALTH_EVALUATION,
    find: "const rebooting = reboot !== undefined && isRebootedByCke(node, reboot.cordonedByAnnotation);",
    replace: "const rebooting = false;",
  },
  {
    name: "holds-ignored",
    rule: "a held machine's entry does not move",
    file: WALK,
    find: "const machineHold = snapshot.holds?.get(entry.address);",
    replace: 'const machineHold = snapshot.holds?.get("no machine");',
  },
  {
    name: "escalation-release-ignored",
    rule: "escalation counts only the repairs created after an operator released the machine",
    file: "src/domain/escalation/repair-escalation.ts",
    find: "const since = Math.max(now - windowSeconds * 1000, record.releases?.get(address) ?? -Infinity);",
    replace: "const since = now - windowSeconds * 1000;",
  },
  {
    name: "queued-machine-enqueued-again",
    rule: "the sabakan trigger never enqueues a machine that has an entry in the queue",
    file: INTAKE,
    find: "    if (recent.has(address)) {",
    replace: "    if (false) {",
  },
  {
    name: "max-concurrent-repairs-ignored",
    rule: "at most max_concurrent_repairs entries are in progress",
    file: WALK,
    find: "if (inProgress >= snapshot.repair.maxConcurrentRepairs) {",
    replace: "if (false) {",
  },
  {
    name: "control-planes-not-one-at-a-time",
    rule: "control planes are repaired one at a time",
    file: PLANES,
    find: '  if (repairing)\n    return { rule: "one-at-a-time",',
    replace: '  if (false)\n    return { rule: "one-at-a-time",',
  },
  {
    name: "control-plane-repaired-beside-one-not-ready",
    rule: "no control plane is drained or repaired while another one is not Ready",
    file: PLANES,
    find: "const notReady = planes.find((p) => p !== own && !p.ready);",
    replace: "const notReady = planes.find((p) => p !== own && !p.ready && false);",
  },
  {
    name: "drain-back-off-ignored",
    rule: "a drain that failed or timed out is retried only after its back-off",
    file: "src/domain/queue/drain-backoff.ts",
    find: "return isBackedOff(entry) && (entry.drainBackoffExpire ?? 0) > now;",
    replace: "return false;",
  },
  {
    name: "held-success-runs-its-command",
    rule: "a held machine's entry succeeds without running its success command",
    file: "src/domain/queue/healthy-finish.ts",
    find: "if (hold === undefined || operation.successCommand === null) {",
    replace: "if (true) {",
  },
  {
    name: "diagnostics-at-every-step",
    rule: "the diagnostics command runs once, before the entry's first drain or repair command",
    file: "src/domain/queue/diagnostics.ts",
    find: 'if (!op.diagnosticsCommand || entry.status !== "queued" || entry.step !== 0) return null;',
    replace: "if (!op.diagnosticsCommand) return null;",
  },
  {
    name: "pacing-ignored",
    rule: "a failure domain has at most its allowance of repairs in progress",
    file: "src/domain/pacing/repair-pacing.ts",
    find: "if ((inProgress.get(key) ?? 0) >= a.allowance) return",
    replace: "if (false) return",
  },
  {
    name: "health-gate-ignored",
    rule: "a health check remediates only while its max_unhealthy (or range) lets it",
    file: REMEDIATION,
    find: "  if (!evaluation.gate.open)\n",
    replace: "  if (false)\n",
  },
  {
    name: "health-check-timeout-ignored",
    rule: "a Node is remediated only once its condition outlasted the check's timeout",
    file: HEALTH_EVALUATION,
    find: "    if (deadline < now) {",
    replace: "    if (true) {",
  },
  {
    name: "queue-cap-ignored",
    rule: "the sabakan trigger enqueues nothing past maximum-repair-queue-entries",
    file: INTAKE,
    find: "if (candidates > 0 && input.entries.length + candidates > limit) {",
    replace: "if (false) {",
  },
  {
    name: "health-check-queue-cap-ignored",
    rule: "a health check enqueues nothing past maximum-repair-queue-entries",
    file: REMEDIATION,
    find: "if (candidates > 0 && entries.length + candidates > maximumRepairQueueEntries) {",
    replace: "if (false) {",
  },
  {
    name: "paused-health-check-remediates",
    rule: "a paused health check remediates nothing",
    file: HEALTH_EVALUATION,
    find: '  if (check.paused) return { open: false, remediationsAllowed: 0, reason: "paused" };\n',
    replace: "",
  },
  {
    name: "failed-success-command-succeeds",
    rule: "an entry whose success command fails, fails",
    file: "src/domain/queue/repair-outcomes.ts",
    find: '    after: { ...entry, status: "failed", lastTransitionTime },',
    replace: '    after: { ...entry, status: "succeeded", lastTransitionTime },',
  },
  {
    name: "command-retries-ignored",
    rule: "a failed repair command is tried command_retries more times before the entry fails",
    file: "src/runner/repair-jobs.ts",
    find: "for (let i = 0; i <= step.commandRetries; i++) {",
    replace: "for (let i = 0; i <= 0; i++) {",
  },
  {
    name: "boot-id-not-compared",
    rule: "boot_id_changed holds only for another boot ID than the one recorded before the repair command",
    file: PROOF,
    find: "boot_id_changed: before.bootIdBefore !== null && bootId !== null && bootId !== before.bootIdBefore,",
    replace: "boot_id_changed: bootId !== null,",
  },
  {
    name: "dwell-does-not-hold-the-watch",
    rule: "while its proof dwell runs, an entry's watch does not end and its next step does not start",
    file: "src/domain/queue/healthy-finish.ts",
    find: 'if (proof?.kind !== "unproven" || !proof.dwelling) return null;',
    replace: "return null;",
  },
  {
    name: "stray-cordons-kept",
    rule: "a node kintsugi cordoned for an entry that no longer needs it is uncordoned",
    file: "src/domain/queue/stray-cordons.ts",
    find: 'return entry !== undefined && entry.status === "processing" && !isBackedOff(entry) && !yielded.has(entry.index);',
    replace: "return entry !== undefined;",
  },
  {
    name: "escalation-ignored",
    rule: "a machine repaired max_repairs times in the window is escalated (held, or given the escalation operation)",
    file: "src/domain/escalation/repair-escalation.ts",
    find: "if (repairs.length < config.maxRepairs) return null;",
    replace: "return null;",
  },
  {
    name: "health-check-rack-limit-off",
    rule: "a health check holds back a rack with more unhealthy Nodes than maximum-unhealthy-machines-per-rack",
    file: REMEDIATION,
    find: "if (!limit || limit.maximum <= 0) return () => null;",
    replace: "return () => null;",
  },
  {
    name: "yield-ends-the-watch-mid-dwell",
    rule: "a control plane that gives up the turn keeps the watch its proof dwell holds open",
    file: "src/domain/queue/control-plane-turn.ts",
    find: '    if (proof?.kind === "unproven" && proof.dwelling) return { transitions: prefix, effect: { kind: "none" }, wakeAt: proof.wakeAt };\n',
    replace: "",
  },
  {
    name: "unknown-signal-taken-for-a-relapse",
    rule: "a proof signal whose source did not answer neither holds nor fails: a sabakan outage is no relapse",
    file: PROOF,
    find: "const unknown: readonly EvidenceSignal[] = requires.filter((s) => observed.unknown?.includes(s) ?? false);",
    replace: "const unknown: readonly EvidenceSignal[] = [];",
  },
  {
    name: "held-control-plane-keeps-the-turn",
    rule: "a held control plane gives the one-control-plane turn up as any other the yield rule names",
    file: WALK,
    find: "if (planeHold && yieldsTurn(entry, planeHold, obs)) {",
    replace: "if (planeHold && yieldsTurn(entry, planeHold, obs) && false) {",
  },
  {
    name: "repairs-without-etcd-quorum",
    rule: "no repair operation runs while etcd is not good for repair (CKE's EtcdIsGoodForRepair)",
    file: DECISION,
    find: "  if (etcd !== null) return frozenPlan(snapshot, etcd);\n",
    replace: "",
  },
  {
    name: "escalation-holds-past-the-cap",
    rule: "the machines escalation would hold count against maximum-repair-queue-entries with those a round would enqueue",
    file: INTAKE,
    find: "const candidates = kept.length + toHold.length;",
    replace: "const candidates = kept.length;",
  },
  {
    name: "inherited-command-taken-for-over",
    rule: "a command another replica started counts as running until its timeout and the margin have passed since its start",
    file: ENTRY_COMMAND,
    find: 'return now < until ? { kind: "may-run", marker, until } : { kind: "interrupted", marker, until };',
    replace: 'return now < until ? null : { kind: "interrupted", marker, until };',
  },
  {
    name: "inherited-command-margin-ignored",
    rule: "an inherited command counts as running for runner.inherited_command_margin_seconds past its timeout (its backstop's kill and slack)",
    file: ENTRY_COMMAND,
    find: "const until = marker.startedAt + (marker.timeoutSeconds + marginSeconds) * 1000;",
    replace: "const until = marker.startedAt + marker.timeoutSeconds * 1000;",
  },
  {
    name: "health-checked-beside-an-inherited-command",
    rule: "no health check runs on a machine while a command another replica started may run there",
    file: "src/runner/gather-state.ts",
    find: 'const mayRun = (entry: RepairEntry) => inherited.get(entry.index)?.kind === "may-run";',
    replace: "const mayRun = (_entry: RepairEntry) => false;",
  },
  {
    name: "no-due-marker",
    rule: "a step's repair command is marked due as the pass decides it, so that a replica stopping before it starts leaves it to run",
    file: PROGRESS,
    find: "return ctx.owner ? { command: commandDue(ctx.owner, config.commandTimeoutSeconds) } : {};",
    replace: "return {};",
  },
  {
    name: "no-started-marker",
    rule: "a command's start is recorded (operation id, replica, time, timeout) in the write committed just before it starts",
    file: "src/runner/repair-jobs.ts",
    find: "const marker = deps.fence && commandStarted(run.command, identity.operationId, deps.fence.owner, startedAt, run.timeoutSeconds);",
    replace: "const marker = undefined;",
  },
  {
    name: "decided-on-a-kept-verdict",
    rule: "a pass decides nothing on a health verdict kept from an earlier pass: it checks the entry again first (a watch ended on a verdict from before the command healed the machine fails a repaired machine)",
    file: "src/runner/fresh-health-decision.ts",
    find: '.filter((a) => reused.has(a.entry.index) && (a.transitions.length > 0 || a.effect.kind !== "none"))',
    replace: '.filter((a) => reused.has(a.entry.index) && ["drain", "repair-command", "diagnostics"].includes(a.effect.kind))',
  },
  {
    name: "deleted-entry-frees-a-fenced-machine",
    rule: "a deleted entry whose command another replica started may still run leaves the queue, and frees its machine, only once that command has certainly ended",
    file: TRIAGE,
    find: 'return entry.deleted && !isFinished(entry) && obs.inherited?.kind === "may-run" && obs.inherited.until !== null ? obs.inherited : undefined;',
    replace: "return undefined;",
  },
  {
    name: "held-control-plane-frees-its-slot",
    rule: "a processing control plane held by another control plane keeps its slot while it keeps the turn (its drain or command runs, or CKE reboots another), so no other repair starts beside it past max_concurrent_repairs",
    file: WALK,
    find: '        if (entry.status === "processing") inProgress++;\n',
    replace: "",
  },
  {
    name: "held-entry-frees-its-slot",
    rule: "an entry held mid-repair by a machine hold keeps its slot (its machine may be cordoned or drained), so no other repair starts beside it past max_concurrent_repairs",
    file: WALK,
    find: "      inProgress++;\n      heldSlots.push(entry.index);\n",
    replace: "      heldSlots.push(entry.index);\n",
  },
  {
    name: "idle-control-plane-walked-first",
    rule: "a processing control plane whose node is not cordoned for it is walked after the entries in the middle of a step, so it never takes the slot of a worker cordoned mid-step and drains beside it",
    file: WALK,
    find: "betweenSteps(c) ? 4 : idlePlane(c, planeOf) ? 2 : 0",
    replace: "betweenSteps(c) ? 4 : 0",
  },
  {
    name: "failure-paced-next-pass",
    rule: "a failure lowers its rack's and machine type's pacing allowance for the starts of the very pass that decides it",
    file: WALK,
    find: "pacingGate(withFailuresDecided(snapshot.pacing, failed), ",
    replace: "pacingGate(snapshot.pacing, ",
  },
  {
    name: "closed-gate-record-without-racks",
    rule: "a closed gate's remediation record keeps sabakan's racks, so that a replay that opens the gate holds a rack over maximum-unhealthy-machines-per-rack",
    file: "src/runner/health-check-runner.ts",
    find: 'rackMaximum > 0 && deps.machines && evaluation.targets.some((t) => t.state === "unhealthy")',
    replace: 'rackMaximum > 0 && deps.machines && evaluation.gate.open && evaluation.targets.some((t) => t.state === "unhealthy")',
  },
  {
    name: "replay-ignores-rack-limit",
    rule: "the what-if replay of a health check's remediation holds a rack over maximum-unhealthy-machines-per-rack, as the live rule does",
    file: "src/domain/replay/remediation-replay.ts",
    find: "    ...(simRacks && { rackLimit: simRacks }),\n",
    replace: "",
  },
  {
    name: "replay-drops-operator-entries",
    rule: "the what-if replay keeps an operator's entry for a machine the live run enqueued and repaired earlier in the replay, so that replayed with the limits in force it reproduces the live run",
    file: "src/domain/replay/auto-repair-replay.ts",
    find: "    for (const address of liveIntroduced) if (!recordedQueue.has(address)) liveIntroduced.delete(address);\n",
    replace: "",
  },
];
