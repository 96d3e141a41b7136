import type { NodeOperator, NodePod } from "../adapters/ports.js";
import { planPod } from "../domain/eviction-plan.js";
import { labelSelectorToString } from "../domain/label-selector.js";
import type { RepairConfig } from "../domain/repair-config.js";
import { abortableSleep } from "./abortable-sleep.js";

/** How an eviction job ended: the node is cordoned and every pod's removal started, or why not. */
export type DrainJobResult = { readonly kind: "started" } | { readonly kind: "failed"; readonly why: string } | { readonly kind: "aborted" };

const podName = (p: NodePod) => `${p.namespace}/${p.name}`;

/**
 * CKE's drain of one node: dry-run evictions of the pods in protected namespaces (a refusal fails the drain before
 * anything changes), cordon with kintsugi's mark, then remove the pods: DaemonSet and non-running Job pods stay; a
 * running Job pod fails the drain when protected and is deleted otherwise; the rest are evicted, retried every
 * `evict_interval` s up to `evict_retries + 1` times in a protected namespace, and deleted on refusal elsewhere.
 * Completion (the pods being gone) is observed by later passes.
 */
export async function runDrainJob(nodes: NodeOperator, repair: RepairConfig, nodename: string, owner: string, signal: AbortSignal): Promise<DrainJobResult> {
  try {
    const pods = await nodes.listPods(nodename);
    const selector = repair.protectedNamespaces === null ? null : labelSelectorToString(repair.protectedNamespaces);
    const protectedNamespaces = new Set(await nodes.listNamespaces(selector === "" ? null : selector));
    const plans = pods.map((pod) => ({ pod, plan: planPod(pod, protectedNamespaces, repair.protectedJobPods) }));

    for (const { pod, plan } of plans) {
      if (signal.aborted) return { kind: "aborted" };
      if (plan.action !== "evict" || !plan.protectedNamespace) continue;
      const outcome = await nodes.evict(pod, { dryRun: true });
      if (outcome.kind === "refused" || outcome.kind === "error") {
        return { kind: "failed", why: `dry-run eviction of ${podName(pod)} was refused: ${outcome.message}` };
      }
    }

    if (signal.aborted) return { kind: "aborted" };
    await nodes.cordon(nodename, owner);

    for (const { pod, plan } of plans) {
      if (signal.aborted) return { kind: "aborted" };
      if (plan.action === "skip") continue;
      if (plan.action === "refuse") return { kind: "failed", why: `protected job-managed pod exists: ${podName(pod)}` };
      if (plan.action === "delete") {
        await nodes.deletePod(pod);
        continue;
      }
      const failure = await evictWithRetries(nodes, repair, pod, plan.protectedNamespace, signal);
      if (failure) return failure;
    }
    return signal.aborted ? { kind: "aborted" } : { kind: "started" };
  } catch (err) {
    return { kind: "failed", why: (err as Error).message };
  }
}

async function evictWithRetries(nodes: NodeOperator, repair: RepairConfig, pod: NodePod, isProtected: boolean, signal: AbortSignal): Promise<DrainJobResult | null> {
  const attempts = isProtected ? repair.evictRetries + 1 : 1;
  for (let attempt = 1; ; attempt++) {
    const outcome = await nodes.evict(pod, { dryRun: false });
    if (outcome.kind === "evicted" || outcome.kind === "not-found") return null;
    if (outcome.kind === "error") return { kind: "failed", why: `eviction of ${podName(pod)} failed: ${outcome.message}` };
    if (!isProtected) {
      await nodes.deletePod(pod);
      return null;
    }
    if (attempt >= attempts) {
      return { kind: "failed", why: `eviction of ${podName(pod)} was refused ${attempts} time(s): ${outcome.message}` };
    }
    if (!(await abortableSleep(repair.evictInterval * 1000, signal))) return { kind: "aborted" };
  }
}
