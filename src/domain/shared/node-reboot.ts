/**
 * The annotation CKE puts on a Node it cordons for a planned reboot (its reboot queue; CKE's own repair drains share
 * it). kintsugi never sets it: kintsugi's cordons carry an annotation of their own.
 */
export const REBOOT_ANNOTATION = "cke.cybozu.com/reboot";

/** What the reboot rules read of a Kubernetes Node. */
export interface RebootFacts {
  readonly unschedulable: boolean;
  readonly annotations: Readonly<Record<string, string>>;
}

// The rule pages (docs/semantics/) each define "rebooting" for their own purpose; each rule below is one of them, built on the
// one before, so the mark is read in one place and the differences are named here.

/**
 * The Node carries CKE's planned-reboot mark, `cke.cybozu.com/reboot: "true"`. Cluster generation never replaces a
 * control plane whose Node carries it (docs/semantics/cluster-generation.md).
 */
export function hasRebootMark(node: Pick<RebootFacts, "annotations">): boolean {
  return node.annotations[REBOOT_ANNOTATION] === "true";
}

/**
 * The sabakan trigger's "rebooting" (docs/semantics/sabakan-trigger.md): the Node carries the mark and kintsugi has not
 * cordoned it (`cordonedByAnnotation`, the annotation of kintsugi's cordons, is absent).
 */
export function isRebootedByCke(node: Pick<RebootFacts, "annotations">, cordonedByAnnotation: string): boolean {
  return hasRebootMark(node) && !Object.hasOwn(node.annotations, cordonedByAnnotation);
}

/**
 * The control-plane rules' "being rebooted" (docs/semantics/repair-queue.md, Control planes): rebooted by CKE as the
 * trigger says, and cordoned, as CKE's reboot queue keeps a Node while it drains and reboots it.
 */
export function isCordonedForReboot(node: RebootFacts, cordonedByAnnotation: string): boolean {
  return isRebootedByCke(node, cordonedByAnnotation) && node.unschedulable;
}

/**
 * CKE's wait for a machine it reboots (cke `sabakan/repairer.go`: `Status.Duration < RepairRebootingSeconds`, strict):
 * a machine CKE is rebooting, failing for less than `wait-seconds-to-repair-rebooting`, is left alone; at the wait's
 * end it is judged as any other. One rule for both callers: the sabakan trigger (failing = sabakan's seconds in
 * UNREACHABLE) and health checks (failing = seconds since the unhealthy condition took its status).
 */
export function withinRebootWait(failingForSeconds: number, waitSeconds: number): boolean {
  return failingForSeconds < waitSeconds;
}

/** When the reboot wait ends for a machine failing since `since` (ms since the epoch): the first instant it is judged. */
export function rebootWaitEndsAt(since: number, waitSeconds: number): number {
  return since + waitSeconds * 1000;
}

/** What health checks need to wait out CKE's reboots: the constraint, and the annotation of kintsugi's own cordons. */
export interface RebootWait {
  /** `wait-seconds-to-repair-rebooting`. */
  readonly waitSeconds: number;
  /** A Node whose cordon carries it is kintsugi's own drain, not CKE's reboot (see isRebootedByCke). */
  readonly cordonedByAnnotation: string;
}
