import { KEPT_GENERATIONS, type ClusterGeneration, type GenerationRound } from "../domain/cluster/generation-record.js";
import type { ClusterNode, GeneratedCluster } from "../domain/cluster/types.js";
import type { WorkerSelection } from "../domain/cluster/worker-selection.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";
import type { Constraints } from "../domain/shared/constraints.js";
import type { Violation } from "./sim-checks.js";

/** What the invariants read of one generation round: the state before it, what it saw and did, the store after. */
export interface RoundView {
  readonly now: number;
  readonly enabled: boolean;
  readonly constraints: Constraints;
  /** The configuration in force before the round. */
  readonly current: ClusterGeneration | null;
  /** Addresses of the Nodes CKE is rebooting as the round ran. */
  readonly rebooting: ReadonlySet<string>;
  /** What the round's sabakan search answered; null when it did not search or the search failed. */
  readonly answer: readonly SabakanMachine[] | null;
  /** null: skipped as a round was running (never in the simulator). */
  readonly result: GenerationRound | null;
  readonly after: ClusterGeneration | null;
  /** Every stored record, oldest first. */
  readonly stored: readonly ClusterGeneration[];
}

/*
 * CKE's rules (cybozu-go/cke sabakan/generator.go, Update and fill; sabakan/integrate.go, runGenerator): a round
 * applies the first maintenance step that applies, then fills; new nodes are HEALTHY machines; a control plane that
 * sabakan still lists is never replaced under all_healthy; more than half of the control planes are never removed
 * for being missing; a failed round changes nothing.
 */
const KEPT_STATES = new Set(["HEALTHY", "UPDATING", "UNINITIALIZED"]);
const RETIRED_WAIT_MS = 300_000;
const cps = (c: GeneratedCluster | null | undefined) => (c?.nodes ?? []).filter((n) => n.control_plane);
const stateTaint = (n: ClusterNode) => n.taints.find((t) => t.key === "cke.cybozu.com/state");

/** The cluster generation invariants, checked after every round; the first violation is kept. */
export class GenerationInvariants {
  readonly checked = new Map<string, number>();
  violation: Violation | null = null;
  private made = 0;
  private lastGenerated: number | null = null;
  private committedThisRound = 0;

  constructor(private readonly policy: WorkerSelection) {}

  /** Every committed generation record (a new one, or one whose repeat count grew). */
  committed(record: ClusterGeneration): void {
    this.committedThisRound++;
    if (record.repeats === 1) this.made++;
    if (record.outcome === "generated") this.lastGenerated = record.sequence;
  }

  roundStarts(): void {
    this.committedThisRound = 0;
  }

  private check(invariant: string, ok: boolean, message: () => string, address: string | null = null): void {
    this.checked.set(invariant, (this.checked.get(invariant) ?? 0) + 1);
    if (!ok && !this.violation) this.violation = { invariant, message: message(), address, entryIndex: null };
  }

  afterRound(v: RoundView): void {
    const result = v.result;
    // Judged by what the round meant to record (an error or a cluster), not by how the store reads the record back.
    const recorded = result?.kind === "recorded" ? result.record : null;
    const failed = recorded?.error != null ? recorded : null;
    const generated = recorded !== null && failed === null && recorded.cluster !== null ? recorded : null;
    this.keptInForce(v);
    this.check(
      "generation-only-while-enabled",
      v.enabled || (result?.kind === "skipped" && this.committedThisRound === 0),
      () => `a round while generation is disabled ended ${result?.kind} with ${this.committedThisRound} records written`,
    );
    this.check(
      "failed-round-keeps-config",
      generated !== null || v.after?.sequence === v.current?.sequence,
      () =>
        `a round that ended ${failed ? `failed (${failed.error})` : result?.kind} changed the configuration in force from record ${v.current?.sequence ?? "none"} to record ${v.after?.sequence ?? "none"}`,
    );
    const answer = v.answer;
    if (answer === null) return;
    const byAddress = new Map(answer.map((m) => [m.ipv4[0] ?? "", m]));
    if (failed) this.failedWithEnough(v, failed, answer);
    if (generated?.cluster) this.newConfiguration(v, generated.cluster, byAddress);
    if (v.after && result?.kind !== "skipped" && !failed) this.renderedStates(v.after.cluster, byAddress);
    if (result?.kind === "unchanged" && v.after?.cluster) {
      const have = cps(v.after.cluster).length;
      const want = v.constraints.controlPlaneCount;
      this.check("generation-control-plane-count", have === want, () => `a round changed nothing with ${have} control planes, control-plane-count is ${want}`);
      if (this.policy === "all_healthy") this.allHealthyComplete(v, v.after.cluster, answer);
    }
  }

  /** The configuration in force is the newest generated record and is kept; the newest 100 records are kept. */
  private keptInForce(v: RoundView): void {
    const inForce = this.lastGenerated;
    const count = v.stored.length;
    this.check(
      "generation-in-force-kept",
      (inForce === null || (v.after?.sequence === inForce && v.stored.some((r) => r.sequence === inForce))) &&
        count >= Math.min(this.made, KEPT_GENERATIONS) &&
        count <= KEPT_GENERATIONS + 1,
      () => `generation record ${inForce} is in force; ${count} records stored of ${this.made} made; current is ${v.after?.sequence ?? "none"}`,
    );
  }

  /** A round never fails for want of a control plane while enough healthy control-plane machines are free for it. */
  private failedWithEnough(v: RoundView, failed: ClusterGeneration, answer: readonly SabakanMachine[]): void {
    const want = v.constraints.controlPlaneCount;
    const nodes = new Map((v.current?.cluster?.nodes ?? []).map((n) => [n.address, n]));
    // Under all_healthy any worker may be promoted; under weighted only while workers exceed minimum-workers, so
    // there the count is of control planes and machines that are no node.
    const usable = answer.filter(
      (m) => m.state === "HEALTHY" && m.role === "cs" && (this.policy === "all_healthy" || nodes.get(m.ipv4[0] ?? "")?.control_plane !== false),
    );
    this.check(
      "generation-control-plane-count",
      !/control-plane-count is/.test(failed.error ?? "") || usable.length < want,
      () => `the round failed (${failed.error}) while ${usable.length} healthy control-plane machines could take the ${want} control planes`,
    );
  }

  private newConfiguration(v: RoundView, cluster: GeneratedCluster, byAddress: ReadonlyMap<string, SabakanMachine>): void {
    const want = v.constraints.controlPlaneCount;
    const after = cps(cluster);
    const had = cps(v.current?.cluster).length;
    // A round applies one step, then fills up to control-plane-count: a removal step leaves any surplus to the next
    // round (CKE's Update returns fill(op) after the first step that acted), so a surplus may stay, never grow.
    this.check(
      "generation-control-plane-count",
      after.length >= want && after.length <= Math.max(want, had),
      () => `the new configuration has ${after.length} control planes, control-plane-count is ${want}, the one in force had ${had}`,
    );
    const before = cps(v.current?.cluster);
    const beforeNodes = new Map((v.current?.cluster?.nodes ?? []).map((n) => [n.address, n]));
    for (const n of cluster.nodes) {
      const was = beforeNodes.get(n.address);
      if (was && (was.control_plane || !n.control_plane)) continue;
      const state = byAddress.get(n.address)?.state;
      this.check(
        "generation-adds-only-healthy",
        state === "HEALTHY",
        () => `${n.address} became a ${n.control_plane ? "control plane" : "worker"} in state ${state ?? "not listed"}`,
        n.address,
      );
    }
    if (v.current === null) return;
    const kept = new Set(after.map((n) => n.address));
    const removed = before.filter((n) => !kept.has(n.address)).map((n) => n.address);
    const missing = before.filter((n) => !byAddress.has(n.address)).map((n) => n.address);
    const what = () => `control planes ${before.map((n) => n.address).join(", ")} -> ${after.map((n) => n.address).join(", ")}`;
    let ok: boolean;
    if (missing.length > 0) ok = (before.length - missing.length) * 2 > before.length && removed.every((a) => missing.includes(a));
    // Down to control-plane-count at once, or not at all when an earlier step (a worker sabakan no longer lists) acted.
    else if (before.length > want) ok = removed.length === 0 || removed.length === before.length - want;
    else if (this.policy === "all_healthy" || before.length < Math.max(2, want)) ok = removed.length === 0;
    else ok = removed.length <= 1 && removed.every((a) => this.replaceable(v, byAddress.get(a)));
    this.check("generation-control-plane-changes", ok, () => `${what()} (missing from sabakan: ${missing.join(", ") || "none"}, control-plane-count ${want})`);
  }

  /** Weighted: a control plane goes past the grace in a bad state and not in a planned reboot. */
  private replaceable(v: RoundView, m: SabakanMachine | undefined): boolean {
    if (!m || KEPT_STATES.has(m.state) || v.rebooting.has(m.ipv4[0] ?? "")) return false;
    const grace = v.constraints.waitSecondsToReplaceControlPlane;
    return grace === 0 || v.now - m.stateSince > grace * 1000;
  }

  /** Every node carries the state taint of its machine's state (CKE's MachineToNode and taintNodes). */
  private renderedStates(cluster: GeneratedCluster | null, byAddress: ReadonlyMap<string, SabakanMachine>): void {
    for (const n of cluster?.nodes ?? []) {
      const state = byAddress.get(n.address)?.state;
      if (state === undefined) continue;
      const want =
        state === "RETIRING" || state === "RETIRED"
          ? state.toLowerCase()
          : state === "UNREACHABLE" && this.policy === "all_healthy"
            ? "unreachable"
            : undefined;
      const have = stateTaint(n)?.value;
      this.check(
        "generation-state-taints",
        have === want,
        () => `node ${n.address} (${state}) has state taint ${have ?? "none"}, CKE's rule asks ${want ?? "none"}`,
        n.address,
      );
    }
  }

  /**
   * all_healthy, after a round that changed nothing: every healthy machine is a node (less one per control plane not
   * HEALTHY, as CKE counts), and no worker RETIRED for more than 300 s stays that minimum-workers-rate lets go.
   */
  private allHealthyComplete(v: RoundView, cluster: GeneratedCluster, answer: readonly SabakanMachine[]): void {
    const nodes = new Map(cluster.nodes.map((n) => [n.address, n]));
    const states = new Map(answer.map((m) => [m.ipv4[0] ?? "", m.state]));
    const idle = answer.filter((m) => m.state === "HEALTHY" && !nodes.has(m.ipv4[0] ?? ""));
    const sickPlanes = cps(cluster).filter((n) => states.get(n.address) !== "HEALTHY").length;
    this.check(
      "all-healthy-every-healthy-machine",
      idle.length <= sickPlanes,
      () => `${idle.length} healthy machines are no node (${idle.map((m) => m.ipv4[0]).join(", ")}) with ${sickPlanes} control planes not HEALTHY`,
      idle[0]?.ipv4[0] ?? null,
    );
    const workers = cluster.nodes.filter((n) => !n.control_plane);
    const retired = answer.find((m) => m.state === "RETIRED" && v.now - m.stateSince > RETIRED_WAIT_MS && nodes.get(m.ipv4[0] ?? "")?.control_plane === false);
    const mayGo = answer.length > 0 && ((workers.length - 1) / answer.length) * 100 >= v.constraints.minimumWorkersRate;
    this.check(
      "all-healthy-every-healthy-machine",
      !retired || !mayGo,
      () =>
        `worker ${retired?.ipv4[0]} is RETIRED for ${(v.now - (retired?.stateSince ?? 0)) / 1000} s and ${workers.length} workers of ${answer.length} machines may lose one`,
      retired?.ipv4[0] ?? null,
    );
  }
}
