import type { CommandRun } from "./command-log.js";
import { CHECKS, type LeadershipEvent, type Violation } from "./fault-checker.js";
import type { FaultKind } from "./fault-plan.js";

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
 * The first replica to become leader after `fault` struck, and the first command after it started by a replica then
 * in a term that began after the fault (the first one elected may lose its lease again before it acts); both before
 * `until`, the next fault.
 */
export function figuresOf(fault: InjectedFault, leadership: readonly LeadershipEvent[], runs: readonly CommandRun[], until = Infinity): FaultFigures {
  const after = leadership.filter((e) => e.time > fault.at && e.time < until).sort((a, b) => a.time - b.time);
  const elected = after[0];
  if (!elected) return { elected: null, firstCommand: null };
  const termAt = (t: number) => after.filter((e) => e.time <= t).at(-1);
  const first = runs.filter((r) => r.start < until && termAt(r.start)?.replica === r.replica).sort((a, b) => a.start - b.start)[0];
  return {
    elected: { replica: elected.replica, ms: elected.time - fault.at },
    firstCommand: first ? { replica: first.replica, ms: first.start - fault.at } : null,
  };
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
      return `  ${kind}: ${of.length} faults; a new leader after ${spread(elected)}; a new leader's first command after ${spread(first)}`;
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
  const first = figures.firstCommand
    ? `, a command of ${figures.firstCommand.replica}'s new term after ${figures.firstCommand.ms} ms`
    : ", no command of a new term yet";
  return `round ${fault.round}: ${fault.kind} of ${fault.target} for ${held} ms: ${elected}${first}`;
}
