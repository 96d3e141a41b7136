import { planPod, type PodFacts } from "./eviction-plan.js";
import type { LabelSelector } from "../shared/label-selector.js";

/** How one eviction request ended. `refused` is HTTP 429: a PodDisruptionBudget said no. */
export type EvictionOutcome =
  | { readonly kind: "evicted" }
  | { readonly kind: "not-found" }
  | { readonly kind: "refused"; readonly message: string }
  | { readonly kind: "error"; readonly message: string };

/** A pod that a drain removes: an unprotected running Job pod is deleted, the others are evicted. */
export type PodRemoval<P extends PodFacts> =
  { readonly pod: P; readonly action: "delete" } | { readonly pod: P; readonly action: "evict"; readonly protectedNamespace: boolean };

/** A drain of one node: the removals in the order of the pod list, or why the drain must not begin. */
export type DrainPlan<P extends PodFacts> =
  { readonly kind: "refused"; readonly why: string } | { readonly kind: "remove"; readonly removals: ReadonlyArray<PodRemoval<P>> };

/** `namespace/name`, as messages name a pod. */
export const podName = (pod: PodFacts): string => `${pod.namespace}/${pod.name}`;

/**
 * Plans the drain of a node from its pods, before anything is changed: a running Job pod that
 * `protected_job_pods` protects refuses the whole drain wherever it is in the list (CKE's dry run walks the pods
 * with the same Job handler), so it is found before the first cordon, eviction or deletion. Otherwise every pod
 * but DaemonSet pods and non-running Job pods is to be removed, in list order.
 */
export function planDrain<P extends PodFacts>(
  pods: readonly P[],
  protectedNamespaces: ReadonlySet<string>,
  protectedJobPods: LabelSelector | null,
): DrainPlan<P> {
  const removals: Array<PodRemoval<P>> = [];
  for (const pod of pods) {
    const plan = planPod(pod, protectedNamespaces, protectedJobPods);
    if (plan.action === "refuse") return { kind: "refused", why: `protected job-managed pod exists: ${podName(pod)}` };
    if (plan.action === "delete") removals.push({ pod, action: "delete" });
    if (plan.action === "evict") removals.push({ pod, action: "evict", protectedNamespace: plan.protectedNamespace });
  }
  return { kind: "remove", removals };
}

/**
 * What a server-side dry-run eviction says about a planned eviction: null when the real drain would get past this
 * pod, else why the drain fails now, before anything changes. A refusal (a PodDisruptionBudget) fails the drain in
 * a protected namespace only: elsewhere the real drain deletes the pod instead. Any other error fails it everywhere,
 * as it would fail the real eviction.
 */
export function dryRunRefusal<P extends PodFacts>(removal: Extract<PodRemoval<P>, { action: "evict" }>, outcome: EvictionOutcome): string | null {
  switch (outcome.kind) {
    case "evicted":
    case "not-found":
      return null;
    case "refused":
      return removal.protectedNamespace ? `dry-run eviction of ${podName(removal.pod)} was refused: ${outcome.message}` : null;
    case "error":
      return `dry-run eviction of ${podName(removal.pod)} failed: ${outcome.message}`;
  }
}
