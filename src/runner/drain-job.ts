import type { NodeOperator, NodePod } from "../adapters/ports.js";
import { dryRunRefusal, planDrain, podName } from "../domain/queue/drain-plan.js";
import { labelSelectorToString } from "../domain/shared/label-selector.js";
import type { RepairConfig } from "../domain/queue/repair-config.js";
import { abortableSleep } from "../support/abortable-sleep.js";

/** How an eviction job ended: the node is cordoned and every pod's removal started, or why not. */
export type DrainJobResult = { readonly kind: "started" } | { readonly kind: "failed"; readonly why: string } | { readonly kind: "aborted" };

/**
 * CKE's drain of one node, checked in full before anything changes: `planDrain` refuses a protected running Job
 * pod wherever it is listed, and every pod to be evicted is dry-run evicted (`dryRunRefusal` says which answers fail
 * the drain). Only then the node is cordoned with kintsugi's mark and the pods removed: unprotected running Job pods
 * deleted, the rest evicted, retried every `evict_interval` s up to `evict_retries + 1` times in a protected
 * namespace, and deleted on refusal elsewhere. Every call gets `signal`. Completion (the pods being gone) is
 * observed by later passes.
 */
export async function runDrainJob(nodes: NodeOperator, repair: RepairConfig, nodename: string, owner: string, signal: AbortSignal): Promise<DrainJobResult> {
  try {
    const pods = await nodes.listPods(nodename, { signal });
    const selector = repair.protectedNamespaces === null ? null : labelSelectorToString(repair.protectedNamespaces);
    const protectedNamespaces = new Set(await nodes.listNamespaces(selector === "" ? null : selector, { signal }));
    const plan = planDrain(pods, protectedNamespaces, repair.protectedJobPods);
    if (plan.kind === "refused") return { kind: "failed", why: plan.why };

    for (const removal of plan.removals) {
      if (signal.aborted) return { kind: "aborted" };
      if (removal.action !== "evict") continue;
      const why = dryRunRefusal(removal, await nodes.evict(removal.pod, { dryRun: true, signal }));
      if (why !== null) return { kind: "failed", why };
    }

    if (signal.aborted) return { kind: "aborted" };
    await nodes.cordon(nodename, owner, { signal });

    for (const removal of plan.removals) {
      if (signal.aborted) return { kind: "aborted" };
      if (removal.action === "delete") {
        await nodes.deletePod(removal.pod, { signal });
        continue;
      }
      const failure = await evictWithRetries(nodes, repair, removal.pod, removal.protectedNamespace, signal);
      if (failure) return failure;
    }
    return signal.aborted ? { kind: "aborted" } : { kind: "started" };
  } catch (err) {
    return signal.aborted ? { kind: "aborted" } : { kind: "failed", why: (err as Error).message };
  }
}

async function evictWithRetries(
  nodes: NodeOperator,
  repair: RepairConfig,
  pod: NodePod,
  isProtected: boolean,
  signal: AbortSignal,
): Promise<DrainJobResult | null> {
  const attempts = isProtected ? repair.evictRetries + 1 : 1;
  for (let attempt = 1; ; attempt++) {
    const outcome = await nodes.evict(pod, { dryRun: false, signal });
    if (outcome.kind === "evicted" || outcome.kind === "not-found") return null;
    if (outcome.kind === "error")
      return signal.aborted ? { kind: "aborted" } : { kind: "failed", why: `eviction of ${podName(pod)} failed: ${outcome.message}` };
    if (!isProtected) {
      await nodes.deletePod(pod, { signal });
      return null;
    }
    if (attempt >= attempts) {
      return { kind: "failed", why: `eviction of ${podName(pod)} was refused ${attempts} time(s): ${outcome.message}` };
    }
    if (!(await abortableSleep(repair.evictInterval * 1000, signal))) return { kind: "aborted" };
  }
}
