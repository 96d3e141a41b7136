import { Gauge, type Registry } from "./prom-client.js";
import { workersByRole } from "../domain/cluster/cluster-usage.js";
import type { MetricsSources } from "./metrics.js";

/**
 * The gauges of cluster generation, as CKE's metrics/metrics.go names them under `kintsugi_`: the configuration in
 * force's generation number in `leaderRegistry` (served by the leader), and CKE's "sabakan_integration" group
 * (success, its time, workers and unused machines by role) in `integrationRegistry` (served by the leader while
 * generation is enabled, as CKE's collector serves it).
 */
export function registerClusterGauges(sources: MetricsSources, leaderRegistry: Registry, integrationRegistry: Registry): void {
  const { clusterGeneration, unusedMachines, integrationVerdict } = sources;
  const leader = [leaderRegistry];
  const integration = [integrationRegistry];
  if (clusterGeneration) {
    new Gauge({
      name: "kintsugi_sabakan_integration_successful",
      help: "1 when the leader's latest cluster generation round that reached a decision made one (or found none needed), 0 when it could not, or before one; a round that could not ask sabakan changes nothing (CKE's semantics)",
      registers: integration,
      collect() {
        this.set(integrationVerdict?.()?.successful === true ? 1 : 0);
      },
    });
    new Gauge({
      name: "kintsugi_sabakan_integration_timestamp_seconds",
      help: "Unix time at which kintsugi_sabakan_integration_successful was last set (0 before the first, as CKE's gauge)",
      registers: integration,
      collect() {
        this.set(Math.floor((integrationVerdict?.()?.at ?? 0) / 1000));
      },
    });
    new Gauge({
      name: "kintsugi_sabakan_generation",
      help: "The generation number of the cluster configuration in force (0 = none)",
      registers: leader,
      collect() {
        this.set(clusterGeneration().current?.generation ?? 0);
      },
    });
    new Gauge({
      name: "kintsugi_sabakan_workers",
      help: "Workers of the generated cluster by role",
      labelNames: ["role"],
      registers: integration,
      collect() {
        this.reset();
        const cluster = clusterGeneration().current?.cluster;
        if (cluster) for (const [role, n] of workersByRole(cluster)) this.set({ role }, n);
      },
    });
  }
  if (unusedMachines) {
    new Gauge({
      name: "kintsugi_sabakan_unused_machines",
      help: "Healthy machines of sabakan's list that no node of the generated cluster uses, by role",
      labelNames: ["role"],
      registers: integration,
      collect() {
        this.reset();
        for (const [role, n] of unusedMachines() ?? []) this.set({ role }, n);
      },
    });
  }
}
