import { DEFAULT_CONSTRAINTS, type Constraints } from "../../domain/constraints.js";
import type { StoredClusterTemplate } from "../../domain/cluster/generation-record.js";
import { DEFAULT_AUTO_REPAIR_VARIABLES, DEFAULT_CLUSTER_VARIABLES, type MachineQueryVariables } from "../../domain/machine-params.js";
import type { PublishedWait } from "../../domain/published-waits.js";
import { readPublishedWaits } from "../published-waits-schema.js";
import { readReleases, storedReleases, withRelease, type EscalationReleases } from "../../domain/escalation-releases.js";
import type { SettingsPort } from "../store-port.js";
import { storedVariables, textOf, variablesOf, type StoredVariables } from "../stored-variables.js";
import type { Db } from "./database.js";
import type { CommitDraft, SqliteCommits } from "./sqlite-commits.js";

/**
 * Persistent switches and values that operators change at run time: queue and auto-repair enablement, the
 * auto-repair query variables and the constraints. Stored in SQLite as JSON under a key (see `SETTINGS_KEYS`); an
 * absent key means the default.
 */
export class SqliteSettingsStore implements SettingsPort {
  private readonly select;
  private readonly upsert;

  /** `initialConstraints` (from the config file) apply where no value was set through the API. */
  constructor(
    db: Db,
    private readonly commits: SqliteCommits,
    private readonly initialConstraints: Partial<Constraints> = {},
  ) {
    this.select = db.prepare("SELECT value FROM settings WHERE key = ?");
    this.upsert = db.prepare("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  }

  repairQueueEnabled(): boolean {
    return this.read("repair-queue-enabled", true);
  }

  async setRepairQueueEnabled(enabled: boolean): Promise<void> {
    this.write("repair-queue-enabled", enabled);
  }

  autoRepairEnabled(): boolean {
    return this.read("auto-repair-enabled", true);
  }

  async setAutoRepairEnabled(enabled: boolean): Promise<void> {
    this.write("auto-repair-enabled", enabled);
  }

  autoRepairVariables(): MachineQueryVariables {
    return variablesOf(this.read<StoredVariables | null>("auto-repair-variables", null)) ?? DEFAULT_AUTO_REPAIR_VARIABLES;
  }

  autoRepairVariablesText(): string | null {
    return textOf(this.read<StoredVariables | null>("auto-repair-variables", null));
  }

  async setAutoRepairVariables(variables: MachineQueryVariables, text?: string): Promise<void> {
    this.write("auto-repair-variables", storedVariables(variables, text));
  }

  /** Whether cluster generation (ckecli's "sabakan integration") runs; on unless an operator disabled it. */
  clusterGenerationEnabled(): boolean {
    return this.read("cluster-generation-enabled", true);
  }

  async setClusterGenerationEnabled(enabled: boolean): Promise<void> {
    this.write("cluster-generation-enabled", enabled);
  }

  /** The searchMachines variables that choose the machines of the generated cluster. */
  clusterVariables(): MachineQueryVariables {
    return variablesOf(this.read<StoredVariables | null>("cluster-variables", null)) ?? DEFAULT_CLUSTER_VARIABLES;
  }

  clusterVariablesText(): string | null {
    return textOf(this.read<StoredVariables | null>("cluster-variables", null));
  }

  async setClusterVariables(variables: MachineQueryVariables, text?: string): Promise<void> {
    this.write("cluster-variables", storedVariables(variables, text));
  }

  /** The cluster template as set, or null before one was. */
  clusterTemplate(): StoredClusterTemplate | null {
    return this.read<StoredClusterTemplate | null>("cluster-template", null);
  }

  async setClusterTemplate(template: StoredClusterTemplate): Promise<void> {
    this.write("cluster-template", template);
  }

  /** Whether a health check was paused or resumed through the API; null when it never was (the config decides). */
  healthCheckPaused(name: string): boolean | null {
    return this.read<boolean | null>(`health-check-paused:${name}`, null);
  }

  async setHealthCheckPaused(name: string, paused: boolean): Promise<void> {
    this.write(`health-check-paused:${name}`, paused);
  }

  /** Defaults, overlaid by the config file's initial values, overlaid by what was set through the API. */
  constraints(): Constraints {
    return { ...DEFAULT_CONSTRAINTS, ...this.initialConstraints, ...this.read<Partial<Constraints>>("constraints", {}) };
  }

  /** Stores every value of `constraints` that an operator set, so a later config change does not undo it. */
  async setConstraints(set: Partial<Constraints>): Promise<void> {
    // Read and written in one transaction, so two operators setting two constraints both keep theirs.
    this.commits.write((draft) => this.put(draft, "constraints", { ...this.read<Partial<Constraints>>("constraints", {}), ...set }));
  }

  /** The waits the leader last published; a stored value of the wrong shape reads as none. */
  repairWaits(): readonly PublishedWait[] {
    return readPublishedWaits(this.read<unknown>("repair-waits", []));
  }

  async setRepairWaits(waits: readonly PublishedWait[]): Promise<void> {
    this.write("repair-waits", waits);
  }

  escalationReleases(): EscalationReleases {
    return readReleases(this.read<unknown>("escalation-releases", {}));
  }

  async noteRelease(address: string, at: number): Promise<void> {
    // Read and written in one transaction, so two releases at once both stay noted.
    this.commits.write((draft) => this.put(draft, "escalation-releases", storedReleases(withRelease(this.escalationReleases(), address, at))));
  }

  private read<T>(key: string, fallback: T): T {
    const row = this.select.get(key) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as T) : fallback;
  }

  private write(key: string, value: unknown): void {
    this.commits.write((draft) => this.put(draft, key, value));
  }

  private put(draft: CommitDraft, key: string, value: unknown): void {
    this.upsert.run(key, JSON.stringify(value));
    draft.settings.push(key);
  }
}
