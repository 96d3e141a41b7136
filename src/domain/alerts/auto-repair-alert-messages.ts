import { mergeAlerts, type Alert } from "./alert.js";
import { heldMachines, holdKey, skipsByKind, summarizeHolds, type HoldGroup, type HoldSummary, type SkipOfPoll } from "../intake/auto-repair-holds.js";
import { SKIP_KINDS, type HeldKind, type SkipKind } from "../intake/skip-kinds.js";

/** An `autoRepairOutcomes` payload, with the fields the alerts use (`kind` as the API spells it, upper-case). */
export interface AutoRepairOutcomePayload {
  readonly sequence: string;
  readonly time: string;
  readonly trigger: string;
  readonly machinesSeen: number;
  readonly skipped: ReadonlyArray<{
    readonly kind: string;
    readonly rack: number | null;
    readonly serial?: string;
    readonly address?: string | null;
    readonly reason?: string;
  }>;
  /** All the skips counted by kind (`skipped` lists at most 1,000); absent from a server that does not count them. */
  readonly skippedByKind?: ReadonlyArray<{ readonly kind: string; readonly machines: number }>;
  readonly shortCircuit: { readonly existingEntries: number; readonly candidates: number; readonly limit: number } | null;
  readonly error: string | null;
}

/** A hold going on: what it is (see holdKey), since which poll, over how many, and how it was last described. */
export interface HoldInForce {
  readonly key: string;
  readonly kinds: readonly HeldKind[];
  readonly since: string;
  readonly polls: number;
  readonly description: string;
}

/** What `alertForOutcome` remembers between polls. */
export interface OutcomeAlertState {
  /** Failed polls in a row. */
  readonly failedPolls: number;
  /** The time of the first of them; null when the last poll succeeded. */
  readonly failingSince: string | null;
  /** What the last successful poll held back; null when it held nothing. */
  readonly hold: HoldInForce | null;
}

export const INITIAL_OUTCOME_STATE: OutcomeAlertState = { failedPolls: 0, failingSince: null, hold: null };
export const DEFAULT_FAILURE_THRESHOLD = 3;

/**
 * The alert for one sabakan poll outcome, and the state for the next.
 * - Failed polls alert once, when `threshold` fail in a row, and once more ("succeed again") when a poll succeeds
 *   after that. A failed poll says nothing of holds: it neither starts, changes nor clears one.
 * - Holds (machines a successful poll left alone because of the per-rack limit, `maximum-repair-queue-entries` or a
 *   rebooting wait) alert once when they start, naming racks and counts; once ("still holds back …, now") when what
 *   is held changes (another reason, another rack over the per-rack limit; counts alone are no news); and once
 *   when a successful poll holds nothing back any more. Polls in between stay quiet.
 * - Repeat offenders (`escalated`: the escalation operation enqueued instead, or a hold set) alert on the poll that
 *   escalates them, naming each machine and why; a held one is skipped as `held` from then on, so it is told once.
 * All on one poll make one message.
 */
export function alertForOutcome(
  outcome: AutoRepairOutcomePayload,
  state: OutcomeAlertState,
  threshold = DEFAULT_FAILURE_THRESHOLD,
): { alert: Alert | null; state: OutcomeAlertState } {
  const poll = { poll: outcome.sequence, trigger: outcome.trigger, time: outcome.time };
  if (outcome.error !== null) {
    const next = { ...state, failedPolls: state.failedPolls + 1, failingSince: state.failingSince ?? outcome.time };
    if (next.failedPolls !== threshold) return { alert: null, state: next };
    const alert: Alert = {
      kind: "warning",
      severity: "warning",
      title: `auto-repair: ${threshold} sabakan polls failed in a row`,
      text: `latest error: ${outcome.error}`,
      fields: { "failing since": next.failingSince, ...poll },
    };
    return { alert, state: next };
  }
  const alerts: Alert[] = [];
  if (state.failedPolls >= threshold) {
    alerts.push({
      kind: "cleared",
      severity: "info",
      title: "auto-repair: sabakan polls succeed again",
      text: `after ${state.failedPolls} failed polls since ${state.failingSince}`,
      fields: poll,
    });
  }
  const summary = summarizeHolds(skipsOf(outcome), countsOf(outcome));
  const { alert, hold } = holdAlert(summary, state.hold, outcome, poll);
  if (alert) alerts.push(alert);
  const escalated = escalationAlert(outcome, poll);
  if (escalated) alerts.push(escalated);
  return { alert: mergeAlerts(alerts), state: { failedPolls: 0, failingSince: null, hold } };
}

function holdAlert(
  summary: HoldSummary,
  before: HoldInForce | null,
  outcome: AutoRepairOutcomePayload,
  poll: Record<string, string>,
): { alert: Alert | null; hold: HoldInForce | null } {
  if (summary.length === 0) {
    if (before === null) return { alert: null, hold: null };
    const title = before.kinds.includes("queue_limit")
      ? "auto-repair no longer short-circuited; no machine held back"
      : "auto-repair no longer holds machines back";
    const polls = `${before.polls} poll${before.polls === 1 ? "" : "s"}`;
    const text = `the latest poll held nothing back; held since ${before.since} over ${polls}, last: ${before.description}`;
    return { alert: { kind: "cleared", severity: "info", title, text, fields: { "held since": before.since, ...poll } }, hold: null };
  }
  const key = holdKey(summary);
  const n = heldMachines(summary);
  const description = summary.map(phrase).join("; ");
  const kinds = summary.map((g) => g.kind);
  if (before !== null && before.key === key) return { alert: null, hold: { ...before, kinds, polls: before.polls + 1, description } };
  const title = before === null ? `auto-repair holds back ${machines(n)}: ${description}` : `auto-repair still holds back ${machines(n)}, now: ${description}`;
  const racks = [...new Set(summary.flatMap((g) => g.racks.map((r) => r.rack)))].sort((a, b) => a - b);
  const sc = outcome.shortCircuit;
  const fields: Record<string, string> = {
    held: String(n),
    ...(racks.length > 0 ? { racks: racks.join(", ") } : {}),
    ...(sc ? { "existing entries": String(sc.existingEntries), candidates: String(sc.candidates), limit: String(sc.limit) } : {}),
    "machines seen": String(outcome.machinesSeen),
    ...(before !== null ? { "held since": before.since } : {}),
    ...poll,
  };
  const alert: Alert = { kind: "held", severity: "warning", title, text: summary.flatMap((g) => explain(g, outcome)).join("\n"), fields };
  return { alert, hold: { key, kinds, since: before?.since ?? outcome.time, polls: (before?.polls ?? 0) + 1, description } };
}

/** The alert for the machines a poll escalated (repair.escalation), or null when it escalated none. */
function escalationAlert(outcome: AutoRepairOutcomePayload, poll: Record<string, string>): Alert | null {
  const escalated = outcome.skipped.filter((s) => s.kind.toLowerCase() === "escalated");
  if (escalated.length === 0) return null;
  const text = escalated.map((s) => `${s.serial ?? "?"} (${s.address ?? "no address"}): ${s.reason ?? "repaired too often"}`).join("\n");
  return {
    kind: "warning",
    severity: "warning",
    title: `auto-repair escalated ${machines(escalated.length)} repaired too often`,
    text,
    fields: { escalated: String(escalated.length), ...poll },
  };
}

/** The payload's skips whose kind this kintsugi knows (a newer server's new kinds are left out). */
function skipsOf(outcome: AutoRepairOutcomePayload): SkipOfPoll[] {
  return outcome.skipped.flatMap((s) => {
    const kind = s.kind.toLowerCase() as SkipKind;
    return SKIP_KINDS.includes(kind) ? [{ kind, rack: s.rack }] : [];
  });
}

/** The payload's whole counts by kind, for the kinds this kintsugi knows; undefined when the server sent none. */
function countsOf(outcome: AutoRepairOutcomePayload): Record<SkipKind, number> | undefined {
  if (outcome.skippedByKind === undefined) return undefined;
  const byKind = outcome.skippedByKind.flatMap((c) => {
    const kind = c.kind.toLowerCase() as SkipKind;
    return SKIP_KINDS.includes(kind) ? [{ kind, machines: c.machines }] : [];
  });
  return skipsByKind({ total: byKind.reduce((n, c) => n + c.machines, 0), byKind });
}

const machines = (n: number) => `${n} machine${n === 1 ? "" : "s"}`;

function rackList(g: HoldGroup): string {
  if (g.racks.length === 0) return "";
  // An outcome lists at most 1,000 skips: its racks are those of the listed ones, and their counts only when all are.
  const whole = g.racks.reduce((n, r) => n + r.machines, 0) === g.machines;
  const among = whole ? "" : " among others";
  if (g.racks.length === 1) return ` in rack ${g.racks[0]?.rack}${among}`;
  return ` in racks ${g.racks.map((r) => (g.kind === "rack_limit" && whole ? `${r.rack} (${r.machines})` : String(r.rack))).join(", ")}${among}`;
}

/** One reason, short, for a title: "4 in rack 3 over the per-rack limit". */
function phrase(g: HoldGroup): string {
  const where = rackList(g);
  switch (g.kind) {
    case "rack_limit":
      return `${g.machines}${where} over the per-rack limit`;
    case "queue_limit":
      return `${g.machines}${where} over maximum-repair-queue-entries`;
    case "rebooting":
      return `${g.machines}${where} rebooting`;
    case "out_of_cluster":
      return `${g.machines}${where} out of the cluster, may be rebooting`;
  }
}

/** One reason, in full, for the text: what holds the machines and until when. */
function explain(g: HoldGroup, outcome: AutoRepairOutcomePayload): string[] {
  const held = `${machines(g.machines)} held`;
  switch (g.kind) {
    case "rack_limit": {
      const why = "more unhealthy machines than maximum-unhealthy-machines-per-rack, likely an infrastructure failure";
      if (g.racks.reduce((n, r) => n + r.machines, 0) === g.machines) return g.racks.map((r) => `rack ${r.rack}: ${machines(r.machines)} held: ${why}`);
      // A storm's outcome lists only some: the racks of the listed ones, and the whole count.
      return [`${held}${rackList(g)}: ${why}`];
    }
    case "queue_limit": {
      const sc = outcome.shortCircuit;
      const counts = sc
        ? `${sc.existingEntries} entries in the queue + ${sc.candidates} candidates > maximum-repair-queue-entries ${sc.limit}`
        : "too many repair requests";
      return [`${held}${rackList(g)}: short-circuited: ${counts}, so none was enqueued`];
    }
    case "rebooting":
      return [`${held}${rackList(g)}: CKE is rebooting their nodes; repaired if still unreachable after wait-seconds-to-repair-rebooting`];
    case "out_of_cluster":
      return [`${held}${rackList(g)}: unreachable and not nodes, may be rebooting; repaired if still unreachable after wait-seconds-to-repair-rebooting`];
  }
}
