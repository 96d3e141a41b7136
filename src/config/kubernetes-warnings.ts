import type { ConfigProblem } from "./load-config.js";

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A warning when the file has health checks but no `kubernetes` section: health checks read Nodes, and without the
 * section kintsugi reaches Kubernetes only through in-cluster credentials, when it happens to run in a Pod. Elsewhere
 * the checks never run, and nothing else would say so. A warning, not a refusal: in a Pod the file works as written.
 */
export function kubernetesWarnings(data: unknown): ConfigProblem[] {
  if (!isMapping(data) || data["kubernetes"] !== undefined) return [];
  const checks = data["health_checks"];
  if (!Array.isArray(checks) || checks.length === 0) return [];
  const one = checks.length === 1;
  const count = one ? "the health check reads" : `the ${checks.length} health checks read`;
  return [
    {
      path: "health_checks",
      message:
        `${count} Nodes from Kubernetes, and the file has no kubernetes section: ${one ? "it runs" : "they run"} only where kintsugi finds ` +
        "in-cluster credentials (in a Pod), and never elsewhere; set kubernetes.kubeconfig, or write kubernetes: {} for the Pod's credentials",
    },
  ];
}
