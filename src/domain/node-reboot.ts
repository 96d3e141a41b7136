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

// The three digests each define "rebooting" for their own purpose; each rule below is one of them, built on the
// one before, so the mark is read in one place and the differences are named here.

/**
 * The Node carries CKE's planned-reboot mark, `cke.cybozu.com/reboot: "true"`. Cluster generation never replaces a
 * control plane whose Node carries it (semantics/cluster-generation.md).
 */
export function hasRebootMark(node: Pick<RebootFacts, "annotations">): boolean {
  return node.annotations[REBOOT_ANNOTATION] === "true";
}

/**
 * The sabakan trigger's "rebooting" (semantics/sabakan-trigger.md): the Node carries the mark and kintsugi has not
 * cordoned it (`cordonedByAnnotation`, the annotation of kintsugi's cordons, is absent).
 */
export function isRebootedByCke(node: Pick<RebootFacts, "annotations">, cordonedByAnnotation: string): boolean {
  return hasRebootMark(node) && !Object.hasOwn(node.annotations, cordonedByAnnotation);
}

/**
 * The control-plane rules' "being rebooted" (semantics/repair-queue.md, Control planes): rebooted by CKE as the
 * trigger says, and cordoned, as CKE's reboot queue keeps a Node while it drains and reboots it.
 */
export function isCordonedForReboot(node: RebootFacts, cordonedByAnnotation: string): boolean {
  return isRebootedByCke(node, cordonedByAnnotation) && node.unschedulable;
}
