import type { CommandRun } from "./command-log.js";
import { CHECKS, type LeadershipEvent, type Violation } from "./fault-checker.js";
import { LEADER_SPARED_KINDS, type FaultKind } from "./fault-plan.js";

/** A fault as it happened: what, to whom, when it struck and when it was healed. */
export interface InjectedFault {
  readonly round: number;
  readonly kind: FaultKind;
  /** The replica or etcd member it struck. */
  readonly target: string;
  readonly at: number;
  readonly healedAt: number;
}

/** How soon after a fault a replica became leader, and started its first command as leader (ms after the fault). */
export interface FaultFigures {
  readonly elected: { readonly replica: string; readonly ms: number } | null;
  readonly firstCommand: { readonly replica: string; readonly ms: number } | null;
}

/**
 * The commands that count as a leader acting after `fault` struck, in the order they started, before `until` (the
 * next fault): those started by a replica then in a term that began after the fault (the first one elected may lose
 * its lease again before it acts); after a fault that spares the leader (an etcd member cut off), any started after
 * it (a command starts only while its replica leads): its term may go on.
 */
export function leaderCommands(fault: InjectedFault, leadership: readonly LeadershipEvent[], runs: readonly CommandRun[], until = Infinity): CommandRun[] {
  const after = leadership.filter((e) => e.time > fault.at && e.time < until).sort((a, b) => a.time - b.time);
  const termAt = (t: number) => after.filter((e) => e.time <= t).at(-1);
  const spared = LEADER_SPARED_KINDS.has(fault.kind);
  return runs.filter((r) => r.start < until && (spared ? r.start > fault.at : termAt(r.start)?.replica === r.replica)).sort((a, b) => a.start - b.start);
}

/** The first replica to become leader after `fault` struck, and the first of its {@link leaderCommands}; both before `until`. */
export function figuresOf(fault: InjectedFault, leadership: readonly LeadershipEvent[], runs: readonly CommandRun[], until = Infinity): FaultFigures {
  const elected = leadership.filter((e) => e.time > fault.at && e.time < until).sort((a, b) => a.time - b.time)[0];
  const first = leaderCommands(fault, leadership, runs, until)[0];
  return {
    elected: elected ? { replica: elected.replica, ms: elected.time - fault.at } : null,
    firstCommand: first ? { replica: first.replica, ms: first.start - fault.at } : null,
  };
}

/** The longest stretch from a fault to its healing in which no leader started a command. */
export function longestWithoutCommand(fault: InjectedFault, commands: readonly CommandRun[]): number {
  const points = [fault.at, ...commands.map((r) => r.start).filter((t) => t > fault.at && t < fault.healedAt), fault.healedAt];
  return Math.max(...points.slice(1).map((t, i) => t - (points[i] as number)));
}

const spread = (values: readonly number[]) => {
  if (values.length === 0) return "none";
  const sorted = [...values].sort((a, b) => a - b);
  const s = (ms: number) => (ms / 1000).toFixed(1);
  return sorted.length === 1
    ? `${s(sorted[0] as number)} s`
    : `${s(sorted[0] as number)}-${s(sorted.at(-1) as number)} s (median ${s(sorted[Math.floor(sorted.length / 2)] as number)})`;
};

/** The figures of a run: faults of each kind, the times to a new leader and its first command, commands, violations. */
export function reportLines(input: {
  readonly faults: readonly InjectedFault[];
  readonly leadership: readonly LeadershipEvent[];
  readonly runs: readonly CommandRun[];
  readonly violations: readonly Violation[];
  readonly unattributed: number;
  readonly attributed: number;
  readonly outageAnswers: number;
}): string[] {
  const { faults, leadership, runs, violations } = input;
  const figures = faults.map((f, i) => ({ fault: f, ...figuresOf(f, leadership, runs, faults[i + 1]?.at ?? Infinity) }));
  const kinds = [...new Set(faults.map((f) => f.kind))];
  const lines = [
    `${faults.length} faults, ${runs.length} commands (${runs.filter((r) => r.ended === null).length} killed), ${violations.length} violations`,
    ...kinds.map((kind) => {
      const of = figures.filter((f) => f.fault.kind === kind);
      const elected = of.flatMap((f) => (f.elected ? [f.elected.ms] : []));
      const first = of.flatMap((f) => (f.firstCommand ? [f.firstCommand.ms] : []));
      if (!LEADER_SPARED_KINDS.has(kind))
        return `  ${kind}: ${of.length} faults; a new leader after ${spread(elected)}; a new leader's first command after ${spread(first)}`;
      const gaps = of.map((f) => longestWithoutCommand(f.fault, leaderCommands(f.fault, leadership, runs, f.fault.healedAt)));
      return `  ${kind}: ${of.length} faults; a new leader after ${spread(elected)}; a leader's (new or not) first command after ${spread(first)}; the longest without a leader's command while it lasted ${spread(gaps)}`;
    }),
    ...CHECKS.map((check) => `  check ${check}: ${violations.filter((v) => v.check === check).length} violations`),
    `  the runner's history records attributed to a replica: ${input.attributed} (${input.unattributed} not attributable)`,
    `  /health answers judged in etcd outages: ${input.outageAnswers}`,
  ];
  return lines;
}

/** One line per fault, as it is injected and healed. */
export function faultLine(fault: InjectedFault, figures: FaultFigures): string {
  const held = fault.healedAt - fault.at;
  const healed = figures.elected && figures.elected.ms > held ? ` (${figures.elected.ms - held} ms after it healed)` : "";
  const elected = figures.elected ? `${figures.elected.replica} led after ${figures.elected.ms} ms${healed}` : "no new leader seen";
  const term = LEADER_SPARED_KINDS.has(fault.kind) ? "term" : "new term";
  const first = figures.firstCommand
    ? `, a command of ${figures.firstCommand.replica}'s ${term} after ${figures.firstCommand.ms} ms`
    : `, no command of a ${term} yet`;
  return `round ${fault.round}: ${fault.kind} of ${fault.target} for ${held} ms: ${elected}${first}`;
}
