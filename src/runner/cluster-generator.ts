import type { MachineSource, NodeOperator } from "../adapters/ports.js";
import { judgeAdoption, type Adoption } from "../domain/cluster/adoption.js";
import { decideGeneration } from "../domain/cluster/generation-decision.js";
import { recordsRecovery, type ClusterGeneration, type GenerationRound, type GenerationTrigger } from "../domain/cluster/generation-record.js";
import { unusedMachinesByRole } from "../domain/cluster/cluster-usage.js";
import type { Waiting } from "../domain/cluster/types.js";
import { DEFAULT_SELECTION_POLICY, type SelectionPolicy } from "../domain/cluster/worker-selection.js";
import type { ClusterGenerationPort, SettingsPort } from "../store/store-port.js";
import { gatherGenerationInputs } from "./generation-inputs.js";
import { PassLoop } from "./pass-loop.js";
import type { Log } from "../support/log.js";

export interface ClusterGeneratorDeps {
  readonly generations: ClusterGenerationPort;
  readonly settings: SettingsPort;
  /** null = sabakan is not configured. */
  readonly machines: MachineSource | null;
  /** null = no Kubernetes: no Node taints are known. */
  readonly nodes: NodeOperator | null;
  readonly now: () => number;
  readonly log: Log;
  /** The config's worker selection policy and spare-node taint key; absent: weighted. */
  readonly policy?: SelectionPolicy;
  /**
   * false: no timer on the real clock for a waiting control plane's grace; the caller starts the rounds itself (the
   * simulator, on its virtual clock, reading {@link ClusterGenerator.recheckDueAt}). Absent: the timer runs.
   */
  readonly recheckTimer?: boolean;
}

const WEIGHT: Readonly<Record<GenerationTrigger, number>> = { adopt: 5, template: 4, settings: 3, event: 2, operator: 1, schedule: 0 };
const weightier = (a: GenerationTrigger | null, b: GenerationTrigger): GenerationTrigger => (a !== null && WEIGHT[a] >= WEIGHT[b] ? a : b);

/** An operator's adoption of the cluster configuration CKE runs, as a pass of the generator's loop. */
interface AdoptionRequest {
  readonly text: string;
  result?: AdoptionOutcome;
}

/** How an adoption ended: refused (and why), or recorded with the worker selection that reproduces it. */
export type AdoptionOutcome =
  | { readonly kind: "refused"; readonly errors: readonly string[] }
  | { readonly kind: "adopted"; readonly record: ClusterGeneration; readonly adoption: Adoption };

/**
 * What the sabakan integration's last round on this replica concluded, as CKE's metrics.UpdateSabakanIntegration
 * sets it (sabakan/integrate.go): set by every round that decided (a new configuration, none needed, or a failure to
 * make one), untouched by a round that could not ask sabakan or the Kubernetes API, found no template or was
 * disabled. null before the first such round.
 */
export interface IntegrationVerdict {
  readonly successful: boolean;
  readonly at: number;
}

type Pass = GenerationTrigger | AdoptionRequest;
/**
 * Cluster generation, one round at a time: gathers the template, sabakan's machines (with the stored variables),
 * the Nodes' taints and the constraints, lets the domain decide, and records the result. Rounds never overlap: a
 * scheduled tick during a round is skipped; a request (template or settings changed) during a round runs one more
 * round after it, so the newest template is always used; an operator's round waits for the one in flight. When a
 * control plane waits out wait-seconds-to-replace-control-plane, a round (trigger `schedule`) is started as its grace
 * ends, so the replacement does not wait for the next scheduled round (scheduled rounds judge it as well).
 */
export class ClusterGenerator {
  private readonly loop: PassLoop<Pass, GenerationRound>;
  private verdict: IntegrationVerdict | null = null;
  private unused: ReadonlyMap<string, number> | null = null;
  private waitingReasons = "";
  /** When the round that just ended wants another: the earliest end of a control plane's grace. */
  private recheckAt: number | null = null;
  private readonly policy: SelectionPolicy;

  constructor(private readonly deps: ClusterGeneratorDeps) {
    this.policy = deps.policy ?? DEFAULT_SELECTION_POLICY;
    this.loop = new PassLoop<Pass, GenerationRound>({
      pass: (pass) => {
        if (typeof pass === "object") return this.adoptPass(pass);
        const trigger = pass;
        this.recheckAt = null;
        return this.round(trigger).catch((err: unknown) => {
          deps.log.error("cluster generation failed unexpectedly", { err: (err as Error).message });
          throw err;
        });
      },
      now: deps.now,
      // Only triggers are requested (an adoption is run, never requested), so only they are merged.
      merge: (a, b) => weightier(a as GenerationTrigger, b as GenerationTrigger),
      onError: () => undefined, // logged by the pass
      timer: { trigger: "schedule", intervalMs: Infinity, nextAt: () => this.recheckAt },
    });
    if (deps.recheckTimer !== false) this.loop.startTimer();
  }

  /** When the last round wants another (the earliest end of a waiting control plane's grace); null: no need. */
  recheckDueAt(): number | null {
    return this.recheckAt;
  }

  /** An operator's round (`runClusterGeneration`): runs after any round in flight. */
  runNow(): Promise<GenerationRound> {
    return this.loop.run("operator");
  }

  /**
   * Adopts the cluster configuration CKE runs (`ckecli cluster get`'s text) as the configuration in force, after any
   * round in flight and before the next (see {@link judgeAdoption}); works while generation is disabled, so an
   * operator adopts before turning it on.
   */
  async adopt(text: string): Promise<AdoptionOutcome> {
    const request: AdoptionRequest = { text };
    await this.loop.run(request);
    return request.result as AdoptionOutcome;
  }

  /** What the last round that decided concluded (CKE's sabakan_integration_successful); null before one. */
  integrationVerdict(): IntegrationVerdict | null {
    return this.verdict;
  }

  /** A scheduled tick: skipped while a round runs. */
  async tick(): Promise<GenerationRound | null> {
    return this.loop.tryRun("schedule");
  }

  /**
   * The template, a setting or a machine's state changed: regenerate soon (after the round in flight, if any;
   * requests during a round make one more round, named after the weightiest of them). Never rejects.
   */
  request(trigger: Extract<GenerationTrigger, "template" | "settings" | "event">): void {
    this.loop.request(trigger);
  }

  /** Shutdown: starts no more rounds (nor the recheck of waiting control planes) and waits for the one in flight. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Healthy machines no node uses, by role, as of the last round that got sabakan's list; null before one. */
  unusedMachines(): ReadonlyMap<string, number> | null {
    return this.unused;
  }

  /** Waits until no round runs and none is pending (shutdown, tests). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  private async round(trigger: GenerationTrigger): Promise<GenerationRound> {
    const { deps } = this;
    const gathered = await gatherGenerationInputs(this.deps, this.policy, false);
    if (!gathered.ok) return "skipped" in gathered ? { kind: "skipped", reason: gathered.skipped } : this.fail(trigger, gathered.error, gathered.decided);
    const { input, template } = gathered;
    // No await from here to the record: the decision and its record see the same configuration in force (rounds never
    // overlap, and only this generator records configurations).
    const current = deps.generations.current();
    // CKE's tmplUpdated (sabakan/integrate.go): the template's revision is not the one stored with the cluster. A
    // record older than templateSetAt was made by a kintsugi that regenerated on every template change.
    const templateChanged = current !== null && current.templateSetAt !== undefined && current.templateSetAt !== template.setAt;
    const decision = decideGeneration({ ...input, current: current?.cluster ?? null, templateChanged }, deps.now());
    this.unused = unusedMachinesByRole(input.machines, decision.kind === "generated" ? decision.cluster : (current?.cluster ?? null));
    this.verdict = { successful: decision.kind !== "failed", at: deps.now() };
    if (decision.kind === "failed") return this.fail(trigger, decision.error, true);
    this.noteWaiting(decision.waiting);
    if (decision.kind === "unchanged") {
      if (!recordsRecovery(deps.generations.latest())) return { kind: "unchanged", current, recovery: null };
      const recovery = await deps.generations.recordRecovered(deps.now(), trigger, this.policy.workerSelection);
      deps.log.info("cluster generation works again; nothing to change", { generation: recovery.generation, trigger });
      return { kind: "unchanged", current, recovery };
    }
    const record = await deps.generations.recordGenerated(deps.now(), trigger, decision.cluster, decision.changes, this.policy.workerSelection, template.setAt);
    deps.log.info("generated cluster configuration", {
      generation: record.generation,
      trigger,
      policy: record.policy,
      nodes: decision.cluster.nodes.length,
      changes: decision.changes,
    });
    return { kind: "recorded", record, repeated: false };
  }

  /** An adoption: refused with the reasons, or recorded as the configuration in force made from the stored template. */
  private async adoptPass(request: AdoptionRequest): Promise<GenerationRound> {
    const { deps } = this;
    const gathered = await gatherGenerationInputs(this.deps, this.policy, true);
    if (!gathered.ok) {
      const why = "skipped" in gathered ? gathered.skipped : gathered.error;
      request.result = { kind: "refused", errors: [`cannot check the cluster configuration against sabakan's machines: ${why}`] };
      return { kind: "skipped", reason: why };
    }
    const judged = judgeAdoption(request.text, gathered.input, deps.now());
    if (!judged.ok) {
      request.result = { kind: "refused", errors: judged.errors };
      return { kind: "skipped", reason: judged.errors.join("; ") };
    }
    const { adoption } = judged;
    const changes = [...adoption.changes, adoption.suggestion];
    const record = await deps.generations.recordGenerated(deps.now(), "adopt", adoption.cluster, changes, this.policy.workerSelection, gathered.template.setAt);
    this.unused = unusedMachinesByRole(gathered.input.machines, adoption.cluster);
    deps.log.info("adopted the cluster configuration CKE runs", {
      generation: record.generation,
      nodes: adoption.cluster.nodes.length,
      suggestion: adoption.suggestion,
    });
    request.result = { kind: "adopted", record, adoption };
    return { kind: "recorded", record, repeated: false };
  }

  /** Logs which control planes wait (when that changes) and asks for a round at the earliest grace's end. */
  private noteWaiting(waiting: Waiting): void {
    // Compared without the seconds, which grow every round: one line when the waiting control planes change.
    const reasons = waiting.reasons.map((r) => r.replace(/ for \S+ s,/, ",")).join("\n");
    if (reasons !== this.waitingReasons && reasons !== "") this.deps.log.info("control planes kept while they wait", { reasons: waiting.reasons });
    this.waitingReasons = reasons;
    this.recheckAt = waiting.recheckAt;
  }

  /** Records a failed round; `decided`: the generator's own failure, which CKE's sabakan_integration_successful reports. */
  private async fail(trigger: GenerationTrigger, error: string, decided: boolean): Promise<GenerationRound> {
    if (decided) this.verdict = { successful: false, at: this.deps.now() };
    const { record, repeated } = await this.deps.generations.recordFailed(this.deps.now(), trigger, error, this.policy.workerSelection);
    if (!repeated) this.deps.log.warn("cluster generation failed; the configuration in force stays", { generation: record.generation, trigger, error });
    return { kind: "recorded", record, repeated };
  }
}
