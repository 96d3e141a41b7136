import type { ClusterNode, MachineSource } from "../adapters/ports.js";
import { canonicalAddresses } from "../domain/shared/address.js";
import { findRepairOperation, type RepairConfig } from "../domain/queue/repair-config.js";
import type { RepairEntry } from "../domain/queue/repair-entry.js";
import type { ObservedProof } from "../domain/proof/repair-evidence.js";
import { proofOf } from "../domain/queue/proof-judgement.js";

export interface ProofSignalDeps {
  readonly repair: RepairConfig;
  /** sabakan, for `sabakan_healthy`; null: not configured (the signal never holds). */
  readonly machines: MachineSource | null;
  /** The rack of a machine as sabakan last said, to bound the query; null when unknown. */
  readonly rackOf: (address: string) => number | null;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
}

const isReady = (node: ClusterNode | undefined) => (node === undefined ? null : node.conditions.some((c) => c.type === "Ready" && c.status === "True"));

/**
 * The signals proof of repair reads, for the entries (unfinished, no job running) whose operation requires proof:
 * the Node's Ready condition and boot ID come from the node list the pass already made; sabakan is asked only when
 * an entry requires `sabakan_healthy` (in any step and step status: the evidence since the first repair command
 * counts whichever step gathered it, and one that never ran it may be healthy already), once per pass, for the
 * HEALTHY machines of those entries' racks (every rack when one is unknown). A failed sabakan query leaves the
 * signal unknown (`ObservedProof.unknown`): never proven, never a relapse. Entries of operations without proof get
 * nothing: no call is made for them.
 */
export async function gatherProofSignals(
  entries: readonly RepairEntry[],
  nodeOf: (address: string) => ClusterNode | undefined,
  deps: ProofSignalDeps,
): Promise<Map<number, ObservedProof>> {
  const proving = entries.filter((e) => {
    const found = findRepairOperation(deps.repair, e.machineType, e.operation);
    return found.ok && proofOf(found.operation) !== null;
  });
  const asking = proving.filter((e) => requiresSabakan(deps.repair, e));
  const healthy = asking.length > 0 ? await healthyInSabakan(asking, deps) : new Set<string>();
  const signals = new Map<number, ObservedProof>();
  for (const e of proving) {
    const node = nodeOf(e.address);
    const observed = { nodeReady: isReady(node), bootId: node?.bootId ?? null, sabakanState: healthy?.has(e.address) ? "HEALTHY" : null };
    signals.set(e.index, healthy === null && requiresSabakan(deps.repair, e) ? { ...observed, unknown: ["sabakan_healthy"] } : observed);
  }
  return signals;
}

function requiresSabakan(repair: RepairConfig, entry: RepairEntry): boolean {
  const found = findRepairOperation(repair, entry.machineType, entry.operation);
  return found.ok && (proofOf(found.operation)?.requires.includes("sabakan_healthy") ?? false);
}

/**
 * The addresses (canonical) of `entries` that sabakan says are HEALTHY; empty when sabakan is not configured; null
 * when it did not answer (the signal is unknown, not failing: see judgeProof).
 */
async function healthyInSabakan(entries: readonly RepairEntry[], deps: ProofSignalDeps): Promise<Set<string> | null> {
  if (!deps.machines) return new Set();
  const racks = entries.map((e) => deps.rackOf(e.address));
  const known = racks.every((r) => r !== null);
  try {
    const machines = await deps.machines.searchMachines({
      having: { states: ["HEALTHY"], ...(known && { racks: [...new Set(racks as number[])] }) },
      notHaving: null,
    });
    return new Set(machines.flatMap((m) => canonicalAddresses(m.ipv4)));
  } catch (err) {
    deps.log("cannot ask sabakan whether repaired machines are healthy; their proof waits", { err: (err as Error).message });
    return null;
  }
}
