import { machineTypeCaseWarnings, machineTypeWarnings } from "./machine-type-warnings.js";
import { repairKeyWarnings } from "./repair-key-warnings.js";
import { knownKeysAt, unknownKeyMessage } from "./nearest-key.js";
import { kubernetesWarnings } from "./kubernetes-warnings.js";
import { parseDocument } from "../domain/shared/yaml.js";
import type { z } from "../support/zod.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../domain/queue/repair-config.js";
import { redactUrlCredentials } from "../domain/shared/url-credentials.js";
import { camelConstraints, configErrorMap, configFileSchema, type ConfigFile, type RepairSection } from "./config-schema.js";
import { DEFAULT_RUNNER, type KintsugiConfig } from "./kintsugi-config.js";
import { toHealthCheckConfigs } from "./health-check-schema.js";
import { toLimits } from "./limits-schema.js";
import { toEtcdConfig } from "./etcd-schema.js";
import { toLeaderElectionConfig } from "./leader-election-schema.js";
import { toPollRecordsConfig } from "./poll-records-schema.js";
import { duplicateTokenNames, toAuthConfig, type AuthSection } from "./auth-schema.js";
import { readTokensFile } from "./tokens-file.js";
import { readTlsFiles, type TlsConfig, type TlsSection } from "./tls-files.js";
import { readFailure } from "./named-files.js";
import type { AuthConfig } from "../auth/access-policy.js";
import type { TokenEntry } from "../auth/tokens.js";
import { readTextBounded } from "../support/bounded-read.js";

/** One thing wrong with a config file: where (a key path such as `repair.max_concurrent_repairs`, or "") and why. */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * A config file that cannot be used. The message lists every problem, one per line, as `source: path: message`.
 * A URL quoted in a problem (a value echoed back, a parser's excerpt) never shows its user name or password.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly source: string;
  readonly problems: readonly ConfigProblem[];

  constructor(source: string, problems: readonly ConfigProblem[]) {
    const redacted = problems.map((p) => ({ path: redactUrlCredentials(p.path), message: redactUrlCredentials(p.message) }));
    super(redacted.map((p) => (p.path ? `${source}: ${p.path}: ${p.message}` : `${source}: ${p.message}`)).join("\n"));
    this.source = source;
    this.problems = redacted;
  }
}

/** Formats a zod path as it would be written in the file: `a.b[0].c`. */
function keyPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text ? `.${String(segment)}` : String(segment);
  }
  return text;
}

function problemsOf(issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  return issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({
          path: keyPath([...issue.path, key]),
          message: unknownKeyMessage(key, knownKeysAt(configFileSchema, issue.path), issue.message),
        }))
      : [{ path: keyPath(issue.path), message: issue.message }],
  );
}

// An empty value (`key:` or `key: null`) counts as absent, as in CKE's decoding of cluster.yml; list items stay.
function withoutNullKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNullKeys(v)]),
  );
}

function readYaml(text: string, source: string): unknown {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ConfigError(
      source,
      doc.errors.map((error) => {
        const at = error.linePos?.[0];
        const reason = error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? error.code;
        const where = at ? ` at line ${at.line}, column ${at.col}` : "";
        return { path: "", message: `invalid YAML${where}: ${reason}` };
      }),
    );
  }
  try {
    return doc.toJS();
  } catch (error) {
    throw new ConfigError(source, [{ path: "", message: `invalid YAML: ${(error as Error).message}` }]);
  }
}

function toRepairConfig(section: RepairSection): RepairConfig {
  return {
    repairProcedures: section.repair_procedures.map((procedure) => ({
      machineTypes: procedure.machine_types,
      repairOperations: procedure.repair_operations.map((op) => ({
        operation: op.operation,
        repairSteps: op.repair_steps.map((step) => ({
          repairCommand: step.repair_command,
          commandTimeoutSeconds: step.command_timeout_seconds,
          commandRetries: step.command_retries,
          commandInterval: step.command_interval,
          needDrain: step.need_drain,
          watchSeconds: step.watch_seconds,
        })),
        healthCheckCommand: op.health_check_command,
        commandTimeoutSeconds: op.command_timeout_seconds,
        successCommand: op.success_command ?? null,
        successCommandTimeout: op.success_command_timeout,
        // Only when configured: an operation without diagnostics stays exactly CKE's.
        ...(op.diagnostics_command && { diagnosticsCommand: op.diagnostics_command, diagnosticsTimeoutSeconds: op.diagnostics_timeout_seconds }),
        // Only when either key is given: an operation without them succeeds on its health check alone, as in CKE.
        ...((op.success_requires || op.success_dwell_seconds !== undefined) && {
          successProof: { requires: op.success_requires ?? [], dwellSeconds: op.success_dwell_seconds ?? 0 },
        }),
      })),
    })),
    maxConcurrentRepairs: section.max_concurrent_repairs,
    protectedNamespaces: section.protected_namespaces ?? null,
    protectedJobPods: section.protected_job_pods ?? null,
    evictRetries: section.evict_retries,
    evictInterval: section.evict_interval,
    evictionTimeoutSeconds: section.eviction_timeout_seconds,
    ...(section.pacing && { pacing: { domains: section.pacing.domains } }),
    ...(section.escalation && {
      escalation: {
        maxRepairs: section.escalation.max_repairs,
        windowSeconds: section.escalation.window_seconds,
        operation: section.escalation.operation ?? null,
      },
    }),
  };
}

/**
 * The tokens of the `auth` section's tokens file (a relative path is taken from the working directory, as
 * `database`), or every problem with the file, and with the names: unique across `inline` (`auth.tokens`) and the file.
 */
export function readAuthTokens(
  tokensFile: string | undefined,
  inline: readonly TokenEntry[],
): { ok: true; fileTokens: TokenEntry[] } | { ok: false; problems: ConfigProblem[] } {
  let fileTokens: TokenEntry[] = [];
  if (tokensFile !== undefined) {
    const read = readTokensFile(tokensFile);
    if (!read.ok) {
      return {
        ok: false,
        problems: read.problems.map((p) => ({ path: "auth.tokens_file", message: `${tokensFile}: ${p.path ? `${p.path}: ` : ""}${p.message}` })),
      };
    }
    fileTokens = read.tokens;
  }
  const duplicates = duplicateTokenNames([...inline, ...fileTokens]);
  if (duplicates.length > 0) {
    return {
      ok: false,
      problems: [{ path: "auth.tokens", message: `token names must be unique (auth.tokens and the tokens file together): ${duplicates.join(", ")}` }],
    };
  }
  return { ok: true, fileTokens };
}

/** The auth section with its tokens file read (see readAuthTokens). */
function toAuth(section: AuthSection, source: string): AuthConfig {
  const read = readAuthTokens(section.tokens_file, section.tokens);
  if (!read.ok) throw new ConfigError(source, read.problems);
  return toAuthConfig(section, read.fileTokens);
}

function toTls(section: TlsSection, source: string): TlsConfig {
  const read = readTlsFiles(section);
  if (!read.ok) throw new ConfigError(source, read.problems);
  return read.tls;
}

function toKintsugiConfig(file: ConfigFile, source: string): KintsugiConfig {
  return {
    listen: file.listen,
    store: file.store,
    database: file.database,
    etcd: toEtcdConfig(file.etcd),
    leaderElection: toLeaderElectionConfig(file.leader_election),
    // Kept as given, less a trailing slash: the sabakan client appends "/graphql" itself.
    sabakan: file.sabakan
      ? {
          url: file.sabakan.url.replace(/\/+$/, ""),
          schedule: file.sabakan.schedule,
          ...(file.sabakan.cluster_schedule !== undefined && { clusterSchedule: file.sabakan.cluster_schedule }),
          timeoutSeconds: file.sabakan.timeout_seconds,
          maxResponseBytes: file.sabakan.max_response_bytes,
          maxConcurrentRequests: file.sabakan.max_concurrent_requests,
          selection: { workerSelection: file.sabakan.worker_selection, spareNodeTaintKey: file.sabakan.spare_node_taint_key ?? null },
        }
      : null,
    kubernetes: file.kubernetes
      ? {
          kubeconfig: file.kubernetes.kubeconfig ?? null,
          timeoutSeconds: file.kubernetes.timeout_seconds,
          maxResponseBytes: file.kubernetes.max_response_bytes,
          watchSeconds: file.kubernetes.watch_seconds,
        }
      : null,
    repair: file.repair ? toRepairConfig(file.repair) : EMPTY_REPAIR_CONFIG,
    healthChecks: toHealthCheckConfigs(file.health_checks),
    runner: file.runner
      ? {
          intervalSeconds: file.runner.interval_seconds,
          healthCheckConcurrency: file.runner.max_concurrent_health_checks ?? file.runner.health_check_concurrency ?? DEFAULT_RUNNER.healthCheckConcurrency,
          inheritedCommandMarginSeconds: file.runner.inherited_command_margin_seconds,
        }
      : DEFAULT_RUNNER,
    constraints: file.constraints ? camelConstraints(file.constraints) : {},
    limits: toLimits(file.limits),
    pollRecords: toPollRecordsConfig(file.poll_records),
    auth: file.auth ? toAuth(file.auth, source) : null,
    tls: file.tls ? toTls(file.tls, source) : null,
  };
}

/**
 * Parses and validates the text of a config file into a KintsugiConfig with every default applied. An empty file
 * gives DEFAULT_CONFIG. `sabakan.url` is kept as written except for a trailing slash; the sabakan client appends
 * "/graphql" when it connects.
 *
 * @param source names the file in messages (usually its path).
 * @throws ConfigError listing every problem found, or the YAML parser's errors with their line and column.
 */
export function parseConfig(text: string, source: string): KintsugiConfig {
  return parseConfigWithWarnings(text, source).config;
}

/** A loaded config and what was loaded but is worth a warning (unknown keys of CKE's `repair` section, machine types in the wrong case). */
export interface LoadedConfig {
  readonly config: KintsugiConfig;
  readonly warnings: readonly ConfigProblem[];
}

/**
 * The YAML of a config file as the schema reads it: parsed, with empty values (`key:`) dropped.
 *
 * @throws ConfigError when the text is not YAML or its top level is not a mapping.
 */
export function readConfigData(text: string, source: string): Record<string, unknown> {
  const data = withoutNullKeys(readYaml(text, source) ?? {});
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    const got = Array.isArray(data) ? "a list" : `${typeof data} ${JSON.stringify(data)}`;
    throw new ConfigError(source, [{ path: "", message: `the top level must be a mapping of keys, got ${got}` }]);
  }
  return data as Record<string, unknown>;
}

/** Every problem the schema finds in the data of readConfigData (none: the file is a valid config, its files unread). */
export function schemaProblems(data: Record<string, unknown>): ConfigProblem[] {
  const result = configFileSchema.safeParse(data, { error: configErrorMap });
  return result.success ? [] : problemsOf(result.error.issues);
}

/** parseConfig, with the warnings `serve` logs and `check-config` prints (see configWarnings). */
export function parseConfigWithWarnings(text: string, source: string): LoadedConfig {
  const data = readConfigData(text, source);
  const result = configFileSchema.safeParse(data, { error: configErrorMap });
  if (!result.success) throw new ConfigError(source, problemsOf(result.error.issues));
  return { config: toKintsugiConfig(result.data, source), warnings: configWarnings(data) };
}

/** What a config file holds that is worth a warning, not a refusal: see repairKeyWarnings, the machine-type warnings and kubernetesWarnings. */
export function configWarnings(data: Record<string, unknown>): ConfigProblem[] {
  return [...repairKeyWarnings(data), ...machineTypeWarnings(data), ...machineTypeCaseWarnings(data), ...kubernetesWarnings(data)];
}

/**
 * Reads and validates the config file at `path` (see parseConfig).
 *
 * @throws ConfigError naming the path when the file cannot be read or is not a valid config.
 */
export function loadConfigFile(path: string): KintsugiConfig {
  return loadConfigFileWithWarnings(path).config;
}

/** loadConfigFile, with the warnings of parseConfigWithWarnings. */
export function loadConfigFileWithWarnings(path: string): LoadedConfig {
  return parseConfigWithWarnings(readConfigText(path), path);
}

/**
 * The text of the config file at `path`.
 *
 * @throws ConfigError naming the path when the file cannot be read.
 */
export function readConfigText(path: string): string {
  try {
    return readTextBounded(path);
  } catch (error) {
    throw new ConfigError(path, [{ path: "", message: `cannot read the config file: ${readFailure(error)}` }]);
  }
}
