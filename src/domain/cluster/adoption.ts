import { parseClusterFile } from "./cluster-file.js";
import { decideGeneration, type GenerationInput } from "./generation-decision.js";
import { describeStrandedWorkers, strandedWorkers } from "./stranded-workers.js";
import type { GeneratedCluster } from "./types.js";
import { WORKER_SELECTIONS, type SelectionPolicy, type WorkerSelection } from "./worker-selection.js";

/** Addresses listed at most in a refusal; the rest are counted. */
const SHOWN = 10;

/** What adopting a cluster configuration reads besides the file: the inputs of a generation round. */
export type AdoptionInput = Omit<GenerationInput, "current" | "templateChanged" | "policy"> & {
  /** The config's policy: its worker selection is judged, and its spare-node taint key used, as a round would. */
  readonly policy: SelectionPolicy;
};

/** What the next generation round would do with the adopted configuration in force, under one worker selection. */
export interface NextRound {
  readonly workerSelection: WorkerSelection;
  readonly outcome: "unchanged" | "generated" | "failed";
  /** The new configuration's reasons (generated) or the error (failed); empty when unchanged. */
  readonly details: readonly string[];
}

/** An adoption: the configuration as read, the worker selection that reproduces it, and why. */
export interface Adoption {
  readonly cluster: GeneratedCluster;
  /** The record's reasons: what was adopted. */
  readonly changes: readonly string[];
  readonly suggested: WorkerSelection;
  /** One sentence: why `suggested`, and whether the config's policy is it. */
  readonly suggestion: string;
  /** The next round under each worker selection, the config's first. */
  readonly nextRounds: readonly NextRound[];
}

export type AdoptionResult = { readonly ok: true; readonly adoption: Adoption } | { readonly ok: false; readonly errors: readonly string[] };

const listed = (addresses: readonly string[]) =>
  addresses.length > SHOWN ? `${addresses.slice(0, SHOWN).join(", ")} and ${addresses.length - SHOWN} more` : addresses.join(", ");

/**
 * Adopts the cluster configuration CKE runs (`ckecli cluster get`) as the configuration in force, so the next round
 * updates it as CKE's sabakan/integrate.go would (Update from the cluster it holds; no Generate from scratch, which
 * picks control planes of its own and could swap etcd members). Refused, changing nothing, when the file is not a
 * cluster configuration; when it has no control plane or not `control-plane-count` of them (CKE's Constraints.Check,
 * which `ckecli cluster set` applies); when a node is not a machine sabakan lists with the cluster variables (CKE's
 * next round would remove it), or its `cke.cybozu.com/serial` annotation names another machine than sabakan's at
 * its address (the file is of another data center, or stale); or when a worker's role no node template takes. The
 * worker selection suggested is the one under which the next round changes nothing: all_healthy (CKE v1.32.2 and
 * later) first, then weighted (CKE before); when neither does, the one that changes less, and the suggestion says
 * that neither reproduces the cluster exactly.
 */
export function judgeAdoption(text: string, input: AdoptionInput, now: number): AdoptionResult {
  const parsed = parseClusterFile(text);
  if (!parsed.ok) return parsed;
  const { cluster } = parsed;
  const errors: string[] = [];
  const cps = cluster.nodes.filter((n) => n.control_plane);
  const { controlPlaneCount } = input.constraints;
  if (cps.length === 0) errors.push("the cluster configuration has no control plane");
  else if (cps.length !== controlPlaneCount) {
    errors.push(
      `the cluster configuration has ${cps.length} control planes and control-plane-count is ${controlPlaneCount}: carry CKE's constraints over first (kintsugi constraints set control-plane-count ${cps.length}), or the next round would change the control planes`,
    );
  }
  const byAddress = new Map(input.machines.filter((m) => m.ipv4.length > 0).map((m) => [m.ipv4[0] as string, m]));
  const missing = cluster.nodes.filter((n) => !byAddress.has(n.address)).map((n) => n.address);
  if (missing.length > 0) {
    errors.push(
      `${missing.length} of ${cluster.nodes.length} nodes are not machines sabakan lists with the cluster variables (${listed(missing)}): the file does not match sabakan's machines (another data center, or the cluster variables differ from CKE's: kintsugi sabakan set-variables with ckecli sabakan get-variables' output)`,
    );
  }
  const mismatched = cluster.nodes.flatMap((n) => {
    const serial = n.annotations["cke.cybozu.com/serial"];
    const machine = byAddress.get(n.address);
    return serial !== undefined && machine !== undefined && machine.serial !== serial ? [`${n.address} (file: ${serial}, sabakan: ${machine.serial})`] : [];
  });
  if (mismatched.length > 0) {
    errors.push(
      `${mismatched.length} nodes name another serial than sabakan's machine at their address: ${listed(mismatched)}; the file does not match sabakan's machines`,
    );
  }
  const stranded = strandedWorkers(input.template, cluster);
  if (stranded.length > 0) errors.push(describeStrandedWorkers(stranded));
  if (errors.length > 0) return { ok: false, errors };

  const configured = input.policy.workerSelection;
  const order = [configured, ...WORKER_SELECTIONS.filter((s) => s !== configured)];
  const nextRounds = order.map((workerSelection) => nextRound(cluster, input, workerSelection, now));
  const suggested = suggest(nextRounds);
  const changes = [`adopt the cluster configuration CKE runs: ${cluster.nodes.length} nodes, control planes ${listed(cps.map((n) => n.address))}`];
  return { ok: true, adoption: { cluster, changes, suggested, suggestion: describeSuggestion(nextRounds, suggested, configured), nextRounds } };
}

function nextRound(cluster: GeneratedCluster, input: AdoptionInput, workerSelection: WorkerSelection, now: number): NextRound {
  const decision = decideGeneration({ ...input, current: cluster, templateChanged: false, policy: { ...input.policy, workerSelection } }, now);
  switch (decision.kind) {
    case "unchanged":
      return { workerSelection, outcome: "unchanged", details: [] };
    case "generated":
      return { workerSelection, outcome: "generated", details: decision.changes };
    case "failed":
      return { workerSelection, outcome: "failed", details: [decision.error] };
  }
}

const PREFERENCE: readonly WorkerSelection[] = ["all_healthy", "weighted"];

/** The selection whose next round changes nothing (all_healthy first); else the one with the fewest changes. */
function suggest(rounds: readonly NextRound[]): WorkerSelection {
  const ranked = [...rounds].sort((a, b) => rank(a) - rank(b) || PREFERENCE.indexOf(a.workerSelection) - PREFERENCE.indexOf(b.workerSelection));
  return (ranked[0] as NextRound).workerSelection;
}

const rank = (r: NextRound) => (r.outcome === "unchanged" ? 0 : r.outcome === "generated" ? r.details.length : Number.MAX_SAFE_INTEGER);

function describeSuggestion(rounds: readonly NextRound[], suggested: WorkerSelection, configured: WorkerSelection): string {
  const chosen = rounds.find((r) => r.workerSelection === suggested) as NextRound;
  const why =
    chosen.outcome === "unchanged"
      ? `worker_selection: ${suggested} reproduces this cluster: the next round changes nothing`
      : `neither worker selection reproduces this cluster exactly; ${suggested} changes least (${chosen.details.length} changes)`;
  const config = configured === suggested ? `the config has it` : `the config has ${configured}: set sabakan.worker_selection: ${suggested} and restart`;
  return `${why}; ${config}`;
}
