/**
 * The two cluster generation policies (`sabakan.worker_selection`): `weighted` sizes the workers by
 * `minimum-workers`, `maximum-workers` and the templates' weights (CKE before v1.32.2, the documented behaviour
 * kintsugi was built from); `all_healthy` makes every healthy machine a worker (CKE v1.32.2 and later).
 */
export const WORKER_SELECTIONS = ["weighted", "all_healthy"] as const;
export type WorkerSelection = (typeof WORKER_SELECTIONS)[number];

/** Existing configurations and records without a policy keep their meaning: weighted. */
export const DEFAULT_WORKER_SELECTION: WorkerSelection = "weighted";

/** How a generation round chooses its nodes, from the config's `sabakan` section. */
export interface SelectionPolicy {
  readonly workerSelection: WorkerSelection;
  /**
   * `sabakan.spare_node_taint_key` (CKE's `sabakan.spare_node_taint_key`): under all_healthy, Nodes tainted with this
   * key are preferred as new control planes, and the taint does not keep a machine out of the control plane. null:
   * none.
   */
  readonly spareNodeTaintKey: string | null;
}

/** weighted, no spare-node taint. */
export const DEFAULT_SELECTION_POLICY: SelectionPolicy = { workerSelection: DEFAULT_WORKER_SELECTION, spareNodeTaintKey: null };

/** Reads a stored policy name; anything else (an older record without one) reads as weighted. */
export function readWorkerSelection(value: unknown): WorkerSelection {
  return value === "all_healthy" ? "all_healthy" : DEFAULT_WORKER_SELECTION;
}
