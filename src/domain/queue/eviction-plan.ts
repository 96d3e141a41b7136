import { matchesLabelSelector, type LabelSelector } from "../shared/label-selector.js";

/** The parts of a pod that decide how a drain treats it. */
export interface PodFacts {
  readonly namespace: string;
  readonly name: string;
  /** The kind of the controlling owner reference (`DaemonSet`, `Job`, `ReplicaSet`, ...), or null. */
  readonly controllerKind: string | null;
  /** `Pending`, `Running`, `Succeeded`, `Failed` or `Unknown`. */
  readonly phase: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** What the drain does with one pod. */
export type PodPlan =
  | { readonly action: "skip"; readonly why: "daemonset" | "job-not-running" }
  | { readonly action: "refuse"; readonly why: "protected-job" }
  | { readonly action: "delete"; readonly why: "unprotected-job" }
  | { readonly action: "evict"; readonly protectedNamespace: boolean };

const TERMINAL_OR_PENDING = new Set(["Pending", "Succeeded", "Failed"]);

function isJobPod(pod: PodFacts): boolean {
  return pod.controllerKind === "Job";
}

/**
 * CKE's treatment of one pod of a node being drained: DaemonSet pods are left alone; Job pods that are not running
 * are left alone; a running Job pod fails the drain when it matches `protected_job_pods` (null or `{}` = every Job
 * pod) and is deleted otherwise; every other pod is evicted, and whether its namespace is protected decides what a
 * refusal means.
 */
export function planPod(pod: PodFacts, protectedNamespaces: ReadonlySet<string>, protectedJobPods: LabelSelector | null): PodPlan {
  if (pod.controllerKind === "DaemonSet") return { action: "skip", why: "daemonset" };
  if (isJobPod(pod)) {
    if (TERMINAL_OR_PENDING.has(pod.phase)) return { action: "skip", why: "job-not-running" };
    const isProtected = protectedJobPods === null || matchesLabelSelector(protectedJobPods, pod.labels);
    return isProtected ? { action: "refuse", why: "protected-job" } : { action: "delete", why: "unprotected-job" };
  }
  return { action: "evict", protectedNamespace: protectedNamespaces.has(pod.namespace) };
}

/**
 * A drain is complete when no pod remains on the node but DaemonSet pods and Job pods that are Pending, Succeeded
 * or Failed. Returns the pods still in the way (empty = complete).
 */
export function podsBlockingDrain<P extends PodFacts>(pods: readonly P[]): P[] {
  return pods.filter((pod) => pod.controllerKind !== "DaemonSet" && !(isJobPod(pod) && TERMINAL_OR_PENDING.has(pod.phase)));
}
