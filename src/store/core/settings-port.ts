import type { StoredClusterTemplate } from "../../domain/cluster/generation-record.js";
import { DEFAULT_CONSTRAINTS, type Constraints } from "../../domain/shared/constraints.js";
import { DEFAULT_AUTO_REPAIR_VARIABLES, DEFAULT_CLUSTER_VARIABLES, type MachineQueryVariables } from "../../domain/sabakan/machine-params.js";
import type { PublishedWait } from "../../domain/queue/published-waits.js";
import { readPublishedWaits } from "../published-waits-schema.js";
import { readReleases, storedReleases, withRelease, type EscalationReleases } from "../../domain/escalation/escalation-releases.js";
import type { SettingsPort } from "../store-port.js";
import { storedVariables, textOf, variablesOf, type StoredVariables } from "../stored-variables.js";
import type { StoreKeys } from "./store-keys.js";
import type { StoreMirror } from "./store-mirror.js";
import { encodeValue } from "./store-values.js";
import type { StoreWriter } from "./store-writer.js";

/**
 * Switches and values operators change at run time, one store key each (`settings/<key>`, on both drivers), read
 * from the mirror; an absent (or unreadable) key means the default. A write compares the key's revision, so a merge
 * (the constraints) is decided on the value it replaces.
 */
export class CoreSettingsPort implements SettingsPort {
  constructor(
    private readonly keys: StoreKeys,
    private readonly mirror: StoreMirror,
    private readonly writer: StoreWriter,
    private readonly initialConstraints: Partial<Constraints> = {},
  ) {}

  repairQueueEnabled(): boolean {
    return this.read("repair-queue-enabled", true);
  }

  setRepairQueueEnabled(enabled: boolean): Promise<void> {
    return this.write("repair-queue-enabled", () => enabled);
  }

  autoRepairEnabled(): boolean {
    return this.read("auto-repair-enabled", true);
  }

  setAutoRepairEnabled(enabled: boolean): Promise<void> {
    return this.write("auto-repair-enabled", () => enabled);
  }

  autoRepairVariables(): MachineQueryVariables {
    return variablesOf(this.read<StoredVariables | null>("auto-repair-variables", null)) ?? DEFAULT_AUTO_REPAIR_VARIABLES;
  }

  autoRepairVariablesText(): string | null {
    return textOf(this.read<StoredVariables | null>("auto-repair-variables", null));
  }

  setAutoRepairVariables(variables: MachineQueryVariables, text?: string): Promise<void> {
    return this.write("auto-repair-variables", () => storedVariables(variables, text));
  }

  clusterGenerationEnabled(): boolean {
    return this.read("cluster-generation-enabled", true);
  }

  setClusterGenerationEnabled(enabled: boolean): Promise<void> {
    return this.write("cluster-generation-enabled", () => enabled);
  }

  clusterVariables(): MachineQueryVariables {
    return variablesOf(this.read<StoredVariables | null>("cluster-variables", null)) ?? DEFAULT_CLUSTER_VARIABLES;
  }

  clusterVariablesText(): string | null {
    return textOf(this.read<StoredVariables | null>("cluster-variables", null));
  }

  setClusterVariables(variables: MachineQueryVariables, text?: string): Promise<void> {
    return this.write("cluster-variables", () => storedVariables(variables, text));
  }

  clusterTemplate(): StoredClusterTemplate | null {
    return this.read<StoredClusterTemplate | null>("cluster-template", null);
  }

  setClusterTemplate(template: StoredClusterTemplate): Promise<void> {
    return this.write("cluster-template", () => template);
  }

  healthCheckPaused(name: string): boolean | null {
    return this.read<boolean | null>(`health-check-paused:${name}`, null);
  }

  setHealthCheckPaused(name: string, paused: boolean): Promise<void> {
    return this.write(`health-check-paused:${name}`, () => paused);
  }

  constraints(): Constraints {
    return { ...DEFAULT_CONSTRAINTS, ...this.initialConstraints, ...this.read<Partial<Constraints>>("constraints", {}) };
  }

  setConstraints(set: Partial<Constraints>): Promise<void> {
    return this.write("constraints", () => ({ ...this.read<Partial<Constraints>>("constraints", {}), ...set }));
  }

  /** The waits the leader last published; the mirror refused a value of the wrong shape (read as none). */
  repairWaits(): readonly PublishedWait[] {
    return readPublishedWaits(this.read<unknown>("repair-waits", []));
  }

  setRepairWaits(waits: readonly PublishedWait[]): Promise<void> {
    return this.write("repair-waits", () => waits);
  }

  escalationReleases(): EscalationReleases {
    return readReleases(this.read<unknown>("escalation-releases", {}));
  }

  noteRelease(address: string, at: number): Promise<void> {
    return this.write("escalation-releases", () => storedReleases(withRelease(this.escalationReleases(), address, at)));
  }

  private read<T>(name: string, fallback: T): T {
    const value = this.mirror.settings.get(name)?.value;
    return value === undefined || value === null ? fallback : (value as T);
  }

  /** `value` is computed on the mirror in each attempt, so a merge retried after a conflict merges the newer value. */
  private write(name: string, value: () => unknown): Promise<void> {
    const key = this.keys.setting(name);
    return this.writer.write(`setting ${name}`, (writeId) => ({
      compares: [{ key, modRevision: this.mirror.settings.get(name)?.modRevision ?? 0 }],
      puts: [{ key, value: encodeValue({ w: writeId, value: value() }) }],
      stamp: key,
      result: undefined,
    }));
  }
}
