import { addressOf, type Plan } from "./plan.js";
import { bySerial } from "./score.js";
import { NOT_WAITING, type ClusterMachine, type Waiting } from "./types.js";

/** The machine states in which a control plane stays (the seed: healthy, updating or uninitialized). */
const KEPT_STATES: ReadonlySet<string> = new Set(["HEALTHY", "UPDATING", "UNINITIALIZED"]);

/** What a control plane's machine state calls for: nothing, its replacement (and why), or waiting (and why). */
export type StateVerdict =
  | { readonly kind: "fine" }
  | { readonly kind: "replace"; readonly reason: string }
  | { readonly kind: "wait"; readonly reason: string; readonly recheckAt: number | null };

/** Elapsed milliseconds as seconds, exactly (whole seconds without a fraction). */
const seconds = (ms: number): string => String(Math.max(0, ms) / 1000);

/**
 * Judges a control plane by its machine's state as of `now`: `fine` in HEALTHY, UPDATING or UNINITIALIZED;
 * otherwise `wait` while its Node carries `cke.cybozu.com/reboot: "true"` (a planned reboot by CKE's reboot queue:
 * never replaced then, whatever the grace) or while the state has lasted no longer than `graceSeconds` (measured
 * from sabakan's `status.duration`, dated on kintsugi's clock; `recheckAt` is the first millisecond past the grace), and `replace` once it has
 * lasted strictly longer, or at once when `graceSeconds` is 0. A rolling reboot thus swaps no etcd member.
 */
export function judgeControlPlaneState(m: ClusterMachine, graceSeconds: number, rebooting: boolean, now: number): StateVerdict {
  if (KEPT_STATES.has(m.state)) return { kind: "fine" };
  const elapsed = now - m.stateSince;
  const head = `control plane ${addressOf(m)} ${m.state} for ${seconds(elapsed)} s`;
  if (rebooting)
    return { kind: "wait", reason: `${head}, not replaced while its node carries cke.cybozu.com/reboot: "true" (a planned reboot)`, recheckAt: null };
  if (graceSeconds === 0) return { kind: "replace", reason: `machine is ${m.state}` };
  if (elapsed > graceSeconds * 1000) return { kind: "replace", reason: `machine is ${m.state} for ${seconds(elapsed)} s (> ${graceSeconds} s)` };
  return { kind: "wait", reason: `${head}, replaced after ${graceSeconds} s`, recheckAt: m.stateSince + graceSeconds * 1000 + 1 };
}

/** {@link judgeControlPlaneState} for a control plane of the plan, with the plan's grace, reboots and `now`. */
export function judgePlanControlPlane(plan: Plan, m: ClusterMachine): StateVerdict {
  return judgeControlPlaneState(m, plan.constraints.waitSecondsToReplaceControlPlane, plan.rebootingNodes.has(addressOf(m)), plan.now);
}

/**
 * The control planes of the finished plan that are kept only because they wait (grace or planned reboot), by
 * serial, with the earliest time one of them falls due. A cluster of one control plane never replaces it, so
 * nothing waits there.
 */
export function waitingControlPlanes(plan: Plan): Waiting {
  if (plan.cps.length < 2) return NOT_WAITING;
  const reasons: string[] = [];
  let recheckAt: number | null = null;
  for (const m of [...plan.cps].sort(bySerial)) {
    const verdict = judgePlanControlPlane(plan, m);
    if (verdict.kind !== "wait") continue;
    reasons.push(verdict.reason);
    if (verdict.recheckAt !== null && (recheckAt === null || verdict.recheckAt < recheckAt)) recheckAt = verdict.recheckAt;
  }
  return { reasons, recheckAt };
}
