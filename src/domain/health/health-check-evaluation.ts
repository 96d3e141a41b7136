import { parseAddress } from "../shared/address.js";
import { formatMaxUnhealthy, SKIP_REMEDIATION_ANNOTATION, type HealthCheckConfig, type UnhealthyCondition } from "./health-check-config.js";
import { matchesLabelSelector } from "../shared/label-selector.js";
import { isRebootedByCke, rebootWaitEndsAt, withinRebootWait, type RebootWait } from "../shared/node-reboot.js";

/** A Node as health checks see it. */
export interface CheckedNode {
  readonly name: string;
  readonly internalIPs: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** Condition type -> status and when it last changed (ms since the epoch). */
  readonly conditions: ReadonlyArray<{ readonly type: string; readonly status: string; readonly lastTransitionTime: number }>;
}

export type TargetState = "healthy" | "pending" | "unhealthy";

/** One node under a check. */
export interface TargetEvaluation {
  readonly node: string;
  /** The node's first InternalIP in canonical form; null when it has none or it is not an IP address. */
  readonly address: string | null;
  /** Why `address` is null; null when it is not. */
  readonly addressProblem: string | null;
  readonly state: TargetState;
  /** The rule that failed (unhealthy) or the one matched first (pending); null when healthy. */
  readonly rule: UnhealthyCondition | null;
  /** When the matched condition took its status; null when healthy. */
  readonly since: number | null;
  /** When a pending target becomes unhealthy unless its condition changes; null otherwise. */
  readonly nextCheckAt: number | null;
}

/** Whether the check may remediate now, and why not when it may not. */
export interface HealthCheckGate {
  readonly open: boolean;
  readonly remediationsAllowed: number;
  /** `total: 3, unhealthy: 2, maxUnhealthy: 40%`, or `paused`; null when open. */
  readonly reason: string | null;
}

export interface HealthCheckEvaluation {
  readonly name: string;
  readonly expected: number;
  readonly currentHealthy: number;
  readonly unhealthyCount: number;
  readonly gate: HealthCheckGate;
  readonly targets: readonly TargetEvaluation[];
  /** The earliest time a pending target turns unhealthy: the runner looks again then. */
  readonly nextCheckAt: number | null;
}

/**
 * One node against the check's rules: a rule matches when the node has a condition of that type with that status,
 * and fails when `lastTransitionTime + timeout < now` (strictly: exactly at the timeout it is still pending, and it
 * is next checked at `timeout - elapsed + 1 s`). Unhealthy if any rule failed, healthy if none matches, else pending.
 * With `reboot`, a failed rule of a Node CKE is rebooting (isRebootedByCke) stays pending while its condition has
 * held for less than `wait-seconds-to-repair-rebooting` (withinRebootWait, the sabakan trigger's rule), and is next
 * checked when that wait ends: a bare-metal boot is slower than most timeouts.
 */
export function evaluateTarget(node: CheckedNode, rules: readonly UnhealthyCondition[], now: number, reboot?: RebootWait): TargetEvaluation {
  const { address, addressProblem } = addressOf(node);
  const rebooting = reboot !== undefined && isRebootedByCke(node, reboot.cordonedByAnnotation);
  let pending: { rule: UnhealthyCondition; since: number; nextCheckAt: number } | null = null;
  for (const rule of rules) {
    const condition = node.conditions.find((c) => c.type === rule.type && c.status === rule.status);
    if (!condition) continue;
    const since = condition.lastTransitionTime;
    const deadline = since + rule.timeoutSeconds * 1000;
    // `timeout - elapsed + 1 s` from now is one second past the deadline.
    let nextCheckAt = deadline + 1000;
    if (deadline < now) {
      if (!rebooting || !withinRebootWait((now - since) / 1000, reboot.waitSeconds))
        return { node: node.name, address, addressProblem, state: "unhealthy", rule, since, nextCheckAt: null };
      nextCheckAt = rebootWaitEndsAt(since, reboot.waitSeconds);
    }
    if (!pending || nextCheckAt < pending.nextCheckAt) pending = { rule, since, nextCheckAt };
  }
  if (!pending) return { node: node.name, address, addressProblem, state: "healthy", rule: null, since: null, nextCheckAt: null };
  return { node: node.name, address, addressProblem, state: "pending", ...pending };
}

// The first InternalIP, as sabakan's first IPv4 is taken: a hostile one (`-rf`, control characters) is not passed
// over for a later one, it leaves the node without an address, and the remediation says why.
function addressOf(node: CheckedNode): { address: string | null; addressProblem: string | null } {
  const first = node.internalIPs[0];
  if (first === undefined) return { address: null, addressProblem: "the node has no InternalIP" };
  const parsed = parseAddress(first);
  return parsed.ok
    ? { address: parsed.address, addressProblem: null }
    : { address: null, addressProblem: `the node's first InternalIP is not an address: ${parsed.message}` };
}

/**
 * A check over the cluster's nodes, as Cluster API's MachineHealthCheck: targets are the nodes its selector picks,
 * each judged by evaluateTarget (with `reboot`: Nodes CKE is rebooting wait it out)
 * (less those annotated to skip remediation); pending targets count against the budget; a range, when set, decides
 * (`min <= unhealthy <= max`), else `max_unhealthy` as an integer (not capped at the target count) or a percentage
 * of the targets rounded down. A paused check never opens its gate.
 */
export function evaluateHealthCheck(check: HealthCheckConfig, nodes: readonly CheckedNode[], now: number, reboot?: RebootWait): HealthCheckEvaluation {
  const targets = nodes
    .filter((n) => matchesLabelSelector(check.selector, n.labels) && !Object.hasOwn(n.annotations, SKIP_REMEDIATION_ANNOTATION))
    .map((n) => evaluateTarget(n, check.unhealthyConditions, now, reboot))
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  const expected = targets.length;
  const currentHealthy = targets.filter((t) => t.state === "healthy").length;
  const unhealthyCount = expected - currentHealthy;
  const nextChecks = targets.map((t) => t.nextCheckAt).filter((t): t is number => t !== null);
  return {
    name: check.name,
    expected,
    currentHealthy,
    unhealthyCount,
    gate: gateOf(check, expected, unhealthyCount),
    targets,
    nextCheckAt: nextChecks.length > 0 ? Math.min(...nextChecks) : null,
  };
}

/**
 * A check's gate for `unhealthy` (unhealthy and pending) of `expected` targets: its range when set
 * (`min <= unhealthy <= max`), else `max_unhealthy`; always closed when paused. The replay weighs other limits with it.
 */
export function gateOf(check: Pick<HealthCheckConfig, "maxUnhealthy" | "unhealthyRange" | "paused">, expected: number, unhealthy: number): HealthCheckGate {
  let open: boolean;
  let allowed: number;
  let limit: string;
  if (check.unhealthyRange) {
    const { min, max } = check.unhealthyRange;
    open = min <= unhealthy && unhealthy <= max;
    allowed = max - unhealthy;
    limit = `unhealthyRange: [${min}-${max}]`;
  } else {
    const m = check.maxUnhealthy;
    const maxUnhealthy = m.kind === "count" ? m.value : Math.floor((m.value * expected) / 100);
    open = unhealthy <= maxUnhealthy;
    allowed = maxUnhealthy - unhealthy;
    limit = `maxUnhealthy: ${formatMaxUnhealthy(m)}`;
  }
  const remediationsAllowed = open ? Math.max(0, allowed) : 0;
  if (check.paused) return { open: false, remediationsAllowed: 0, reason: "paused" };
  return { open, remediationsAllowed, reason: open ? null : `total: ${expected}, unhealthy: ${unhealthy}, ${limit}` };
}
