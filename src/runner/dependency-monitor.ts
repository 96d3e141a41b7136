import type { ClusterNode, KubeCallOptions, MachineSource, NodeOperator } from "../adapters/ports.js";
import { dependencyCall, notAsked, type DependencyName, type DependencyStatus } from "../domain/service/dependency-status.js";
import type { MachineQueryVariables } from "../domain/sabakan/machine-params.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";

/**
 * This process's view of sabakan and the Kubernetes API, fed by the calls it makes to them (see dependencyCall), and
 * told to `changed` whenever one goes down or comes back (subscriptions hook in there). Each replica keeps its own:
 * a follower makes no Kubernetes calls, so it says "not asked" of Kubernetes.
 */
export class DependencyMonitor {
  private readonly statuses = new Map<DependencyName, DependencyStatus>();

  /** `names`: the dependencies this kintsugi is configured with, in the order they are listed. */
  constructor(
    names: readonly DependencyName[],
    private readonly now: () => number,
    private readonly changed: (status: DependencyStatus) => void = () => undefined,
  ) {
    for (const name of names) this.statuses.set(name, notAsked(name));
  }

  /** A call to `name` worked (it answered, even with a refusal: it is there). */
  worked(name: DependencyName): void {
    this.record(name, { ok: true });
  }

  /** A call to `name` got no usable answer. */
  failed(name: DependencyName, err: unknown): void {
    this.record(name, { ok: false, error: err instanceof Error ? err.message : String(err) });
  }

  /** Every configured dependency's status. */
  list(): DependencyStatus[] {
    return [...this.statuses.values()];
  }

  private record(name: DependencyName, call: Parameters<typeof dependencyCall>[1]): void {
    const status = this.statuses.get(name);
    if (!status) return;
    const step = dependencyCall(status, call, this.now());
    this.statuses.set(name, step.status);
    if (step.change !== null) this.changed(step.status);
  }

  /** `source` with every call's outcome recorded as sabakan's. */
  watchingMachines(source: MachineSource): MachineSource {
    return {
      searchMachines: async (variables: MachineQueryVariables): Promise<SabakanMachine[]> => {
        try {
          const machines = await source.searchMachines(variables);
          this.worked("sabakan");
          return machines;
        } catch (err) {
          this.failed("sabakan", err);
          throw err;
        }
      },
    };
  }

  /**
   * `nodes` with its node lists recorded as Kubernetes' outcome: every repair pass, health-check round and poll lists
   * the nodes, so the lists say soonest whether the API server answers. A list the caller aborted says nothing.
   */
  watchingNodes(nodes: NodeOperator): NodeOperator {
    const listNodes = async (options?: KubeCallOptions): Promise<ClusterNode[]> => {
      try {
        const listed = await nodes.listNodes(options);
        this.worked("kubernetes");
        return listed;
      } catch (err) {
        if (!options?.signal?.aborted) this.failed("kubernetes", err);
        throw err;
      }
    };
    return {
      listNodes,
      cordon: (...args) => nodes.cordon(...args),
      uncordon: (...args) => nodes.uncordon(...args),
      listPods: (...args) => nodes.listPods(...args),
      listNamespaces: (...args) => nodes.listNamespaces(...args),
      evict: (...args) => nodes.evict(...args),
      deletePod: (...args) => nodes.deletePod(...args),
      recordEvent: (...args) => nodes.recordEvent(...args),
      watchNodes: (changed) => nodes.watchNodes(changed),
    };
  }
}
