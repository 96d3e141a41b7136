import type { StoredClusterTemplate } from "../../domain/cluster/generation-record.js";
import { DEFAULT_CONSTRAINTS, type Constraints } from "../../domain/shared/constraints.js";
import { DEFAULT_AUTO_REPAIR_VARIABLES, DEFAULT_CLUSTER_VARIABLES, type MachineQueryVariables } from "../../domain/sabakan/machine-params.js";
import { variablesText } from "../../domain/sabakan/cke-query-variables.js";
import type { PublishedWait } from "../../domain/queue/published-waits.js";
import { readReleases, storedReleases, withRelease, type EscalationReleases } from "../../domain/escalation/escalation-releases.js";
import type { SettingsPort } from "../store-port.js";
import { stampedWrite } from "./store-writer.js";
import { CorePort, type CoreParts } from "./core-port.js";

/**
 * Switches and values operators change at run time, one store key each (`settings/<name>`), read from the mirror; an
 * absent (or unreadable) key means the default. A write compares the key's revision, so a merge (the constraints) is
 * decided on the value it replaces.
 */
export class CoreSettingsPort extends CorePort implements SettingsPort {
  constructor(
    parts: CoreParts,
    private readonly initialConstraints: Partial<Constraints> = {},
  ) {
    super(parts);
  }

  repairQueueEnabled = (): boolean => this.read("repair-queue-enabled", true);
  setRepairQueueEnabled = (enabled: boolean): Promise<void> => this.write("repair-queue-enabled", () => enabled);
  autoRepairEnabled = (): boolean => this.read("auto-repair-enabled", true);
  setAutoRepairEnabled = (enabled: boolean): Promise<void> => this.write("auto-repair-enabled", () => enabled);
  autoRepairVariables = (): MachineQueryVariables => variablesOf(this.variables("auto-repair-variables")) ?? DEFAULT_AUTO_REPAIR_VARIABLES;
  autoRepairVariablesText = (): string | null => textOf(this.variables("auto-repair-variables"));
  setAutoRepairVariables = (variables: MachineQueryVariables, text?: string): Promise<void> =>
    this.write("auto-repair-variables", () => storedVariables(variables, text));
  clusterGenerationEnabled = (): boolean => this.read("cluster-generation-enabled", true);
  setClusterGenerationEnabled = (enabled: boolean): Promise<void> => this.write("cluster-generation-enabled", () => enabled);
  clusterVariables = (): MachineQueryVariables => variablesOf(this.variables("cluster-variables")) ?? DEFAULT_CLUSTER_VARIABLES;
  clusterVariablesText = (): string | null => textOf(this.variables("cluster-variables"));
  setClusterVariables = (variables: MachineQueryVariables, text?: string): Promise<void> =>
    this.write("cluster-variables", () => storedVariables(variables, text));
  clusterTemplate = (): StoredClusterTemplate | null => this.read<StoredClusterTemplate | null>("cluster-template", null);
  setClusterTemplate = (template: StoredClusterTemplate): Promise<void> => this.write("cluster-template", () => template);
  healthCheckPaused = (name: string): boolean | null => this.read<boolean | null>(`health-check-paused:${name}`, null);
  setHealthCheckPaused = (name: string, paused: boolean): Promise<void> => this.write(`health-check-paused:${name}`, () => paused);
  constraints = (): Constraints => ({ ...DEFAULT_CONSTRAINTS, ...this.initialConstraints, ...this.read<Partial<Constraints>>("constraints", {}) });
  setConstraints = (set: Partial<Constraints>): Promise<void> =>
    this.write("constraints", () => ({ ...this.read<Partial<Constraints>>("constraints", {}), ...set }));
  repairWaits = (): readonly PublishedWait[] => this.read<readonly PublishedWait[]>("repair-waits", []);
  setRepairWaits = (waits: readonly PublishedWait[]): Promise<void> => this.write("repair-waits", () => waits);
  escalationReleases = (): EscalationReleases => readReleases(this.read<unknown>("escalation-releases", {}));
  noteRelease = (address: string, at: number): Promise<void> =>
    this.write("escalation-releases", () => storedReleases(withRelease(this.escalationReleases(), address, at)));

  private variables(name: string): StoredVariables | null {
    return this.read<StoredVariables | null>(name, null);
  }

  private read<T>(name: string, fallback: T): T {
    const value = this.mirror.settings.get(name)?.value;
    return value === undefined || value === null ? fallback : (value as T);
  }

  /** `value` is computed on the mirror in each attempt, so a merge retried after a conflict merges the newer value. */
  private write(name: string, value: () => unknown): Promise<void> {
    return this.writer.write(`setting ${name}`, (writeId) =>
      stampedWrite(this.keys.setting(name), this.mirror.settings.get(name), writeId, { value: value() }, { puts: [] }, undefined),
    );
  }
}

/**
 * Query variables as stored, with the text they were set from (`ckecli set-variables FILE` keeps the file's bytes,
 * and `get-variables` prints them); values stored before texts were kept have none.
 */
interface StoredVariables extends MachineQueryVariables {
  readonly text?: string;
}

function storedVariables(variables: MachineQueryVariables, text: string | undefined): StoredVariables {
  return text === undefined ? { having: variables.having, notHaving: variables.notHaving } : { having: variables.having, notHaving: variables.notHaving, text };
}

/** The variables of a stored value, without its text (no searchMachines variable). */
function variablesOf(stored: StoredVariables | null): MachineQueryVariables | null {
  return stored === null ? null : { having: stored.having, notHaving: stored.notHaving };
}

/** The text a stored value was set from, else its variables as text. */
function textOf(stored: StoredVariables | null): string | null {
  if (stored === null) return null;
  return stored.text ?? variablesText({ having: stored.having, notHaving: stored.notHaving });
}
