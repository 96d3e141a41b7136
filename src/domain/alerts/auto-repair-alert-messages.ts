import { mergeAlerts, type Alert } from "./alert.js";
import {
  deferredMachines,
  deferralKey,
  skipsByKind,
  summarizeDeferrals,
  type DeferralGroup,
  type DeferralSummary,
  type SkipOfPoll,
} from "../intake/auto-repair-deferrals.js";
import { SKIP_KINDS, type DeferredKind, type SkipKind } from "../intake/skip-kinds.js";

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

/** A deferral going on: what it is (see deferralKey), since which poll, over how many, and how it was last described. */
export interface DeferralInForce {
  readonly key: string;
  readonly kinds: readonly DeferredKind[];
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
  /** What the last successful poll deferred; null when it deferred nothing. */
  readonly deferral: DeferralInForce | null;
}

export const INITIAL_OUTCOME_STATE: OutcomeAlertState = { failedPolls: 0, failingSince: null, deferral: null };
export const DEFAULT_FAILURE_THRESHOLD = 3;

/**
 * The alert for one sabakan poll outcome, and the state for the next.
 * - Failed polls alert once, when `threshold` fail in a row, and once more ("succeed again") when a poll succeeds
 *   after that. A failed poll says nothing of deferrals: it neither starts, changes nor clears one.
 * - Deferrals (machines a successful poll left alone for now because of the per-rack limit, `maximum-repair-queue-entries` or a
 *   rebooting wait) alert once when they start, naming racks and counts; once ("still defers …, now") when what
 *   is deferred changes (another reason, another rack over the per-rack limit; counts alone are no news); and once
 *   when a successful poll defers nothing any more. Polls in between stay quiet.
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
  const summary = summarizeDeferrals(skipsOf(outcome), countsOf(outcome));
  const { alert, deferral } = deferralAlert(summary, state.deferral, outcome, poll);
  if (alert) alerts.push(alert);
  const escalated = escalationAlert(outcome, poll);
  if (escalated) alerts.push(escalated);
  return { alert: mergeAlerts(alerts), state: { failedPolls: 0, failingSince: null, deferral } };
}

function deferralAlert(
  summary: DeferralSummary,
  before: DeferralInForce | null,
  outcome: AutoRepairOutcomePayload,
  poll: Record<string, string>,
): { alert: Alert | null; deferral: DeferralInForce | null } {
  if (summary.length === 0) {
    if (before === null) return { alert: null, deferral: null };
    const title = before.kinds.includes("queue_limit") ? "auto-repair no longer short-circuited; no machine deferred" : "auto-repair no longer defers machines";
    const polls = `${before.polls} poll${before.polls === 1 ? "" : "s"}`;
    const text = `the latest poll deferred nothing; deferred since ${before.since} over ${polls}, last: ${before.description}`;
    return { alert: { kind: "cleared", severity: "info", title, text, fields: { "deferred since": before.since, ...poll } }, deferral: null };
  }
  const key = deferralKey(summary);
  const n = deferredMachines(summary);
  const description = summary.map(phrase).join("; ");
  const kinds = summary.map((g) => g.kind);
  if (before !== null && before.key === key) return { alert: null, deferral: { ...before, kinds, polls: before.polls + 1, description } };
  const title = before === null ? `auto-repair defers ${machines(n)}: ${description}` : `auto-repair still defers ${machines(n)}, now: ${description}`;
  const racks = [...new Set(summary.flatMap((g) => g.racks.map((r) => r.rack)))].sort((a, b) => a - b);
  const sc = outcome.shortCircuit;
  const fields: Record<string, string> = {
    deferred: String(n),
    ...(racks.length > 0 ? { racks: racks.join(", ") } : {}),
    ...(sc ? { "existing entries": String(sc.existingEntries), candidates: String(sc.candidates), limit: String(sc.limit) } : {}),
    "machines seen": String(outcome.machinesSeen),
    ...(before !== null ? { "deferred since": before.since } : {}),
    ...poll,
  };
  const alert: Alert = { kind: "held", severity: "warning", title, text: summary.flatMap((g) => explain(g, outcome)).join("\n"), fields };
  return { alert, deferral: { key, kinds, since: before?.since ?? outcome.time, polls: (before?.polls ?? 0) + 1, description } };
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

function rackList(g: DeferralGroup): string {
  if (g.racks.length === 0) return "";
  // An outcome lists at most 1,000 skips: its racks are those of the listed ones, and their counts only when all are.
  const whole = g.racks.reduce((n, r) => n + r.machines, 0) === g.machines;
  const among = whole ? "" : " among others";
  if (g.racks.length === 1) return ` in rack ${g.racks[0]?.rack}${among}`;
  return ` in racks ${g.racks.map((r) => (g.kind === "rack_limit" && whole ? `${r.rack} (${r.machines})` : String(r.rack))).join(", ")}${among}`;
}

/** One reason, short, for a title: "4 in rack 3 over the per-rack limit". */
function phrase(g: DeferralGroup): string {
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

/** One reason, in full, for the text: what defers the machines and until when. */
function explain(g: DeferralGroup, outcome: AutoRepairOutcomePayload): string[] {
  const deferred = `${machines(g.machines)} deferred`;
  switch (g.kind) {
    case "rack_limit": {
      const why = "more unhealthy machines than maximum-unhealthy-machines-per-rack, likely an infrastructure failure";
      if (g.racks.reduce((n, r) => n + r.machines, 0) === g.machines) return g.racks.map((r) => `rack ${r.rack}: ${machines(r.machines)} deferred: ${why}`);
      // A storm's outcome lists only some: the racks of the listed ones, and the whole count.
      return [`${deferred}${rackList(g)}: ${why}`];
    }
    case "queue_limit": {
      const sc = outcome.shortCircuit;
      const counts = sc
        ? `${sc.existingEntries} entries in the queue + ${sc.candidates} candidates > maximum-repair-queue-entries ${sc.limit}`
        : "too many repair requests";
      return [`${deferred}${rackList(g)}: short-circuited: ${counts}, so none was enqueued`];
    }
    case "rebooting":
      return [`${deferred}${rackList(g)}: CKE is rebooting their nodes; repaired if still unreachable after wait-seconds-to-repair-rebooting`];
    case "out_of_cluster":
      return [`${deferred}${rackList(g)}: unreachable and not nodes, may be rebooting; repaired if still unreachable after wait-seconds-to-repair-rebooting`];
  }
}
