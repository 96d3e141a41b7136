import { z } from "../support/zod.js";
import { tokenList } from "../config/auth-schema.js";
import { commandFileProblems } from "../config/command-files.js";
import { databasePathProblems } from "../config/database-path.js";
import { etcdSection, toEtcdConfig } from "../config/etcd-schema.js";
import { DEFAULT_DATABASE } from "../config/kintsugi-config.js";
import {
  ConfigError,
  configWarnings,
  loadConfigFileWithWarnings,
  readAuthTokens,
  readConfigData,
  readConfigText,
  schemaProblems,
  type ConfigProblem,
  type LoadedConfig,
} from "../config/load-config.js";
import { readTlsFiles, tlsSection } from "../config/tls-files.js";
import { readEtcdTls } from "../config/etcd-tls.js";

/**
 * Every check `serve` makes of its config before it opens anything, in the order their problems are listed. These
 * need neither the network nor the store, so `check-config` runs them too. What only the start itself can tell is not
 * among them: whether the listen address can be bound now (another process may hold it), whether the SQLite file is
 * locked by another kintsugi, has a newer schema or stored constraints that contradict the file's, whether etcd
 * answers and its prefix is kintsugi's. sabakan and the Kubernetes API being unreachable is no refusal at all: polls
 * and calls fail, are recorded, and are retried.
 */
export const START_CHECKS = [
  "config-file",
  "yaml",
  "schema",
  "tokens-file",
  "tls-files",
  "etcd-tls-files",
  "kubeconfig",
  "in-cluster-credentials",
  "commands",
  "database-path",
] as const;

export type StartCheck = (typeof START_CHECKS)[number];

/** One reason `serve` would refuse to start: the check that found it, the key path in the config, and what is wrong. */
export interface StartProblem extends ConfigProblem {
  readonly check: StartCheck;
}

/** What the checks found: every problem (none: serve would start), the warnings, and the config when it loads. */
export interface StartReport {
  readonly problems: readonly StartProblem[];
  readonly warnings: readonly ConfigProblem[];
  readonly loaded: LoadedConfig | null;
}

/** The environment a check depends on: `PATH` (bare command names), `KUBERNETES_SERVICE_HOST` (in-cluster credentials). */
export type StartEnvironment = Readonly<Record<string, string | undefined>>;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The checks of the files and programs the config names, each on its own section as written (the rest may be invalid). */
async function fileChecks(data: Record<string, unknown>, env: StartEnvironment): Promise<Array<[StartCheck, ConfigProblem[]]>> {
  const auth = isMapping(data["auth"]) ? data["auth"] : {};
  const tokensFile = typeof auth["tokens_file"] === "string" && auth["tokens_file"] !== "" ? auth["tokens_file"] : undefined;
  const inline = tokenList.safeParse(auth["tokens"] ?? []);
  const tls = z.object(tlsSection.shape).safeParse(data["tls"]);
  const etcd = etcdSection.optional().safeParse(data["etcd"]);
  const kubernetes = data["kubernetes"];
  const kubeconfig = isMapping(kubernetes) ? kubernetes["kubeconfig"] : undefined;
  const sqlite = data["store"] === undefined || data["store"] === "sqlite";
  const database = data["database"] ?? DEFAULT_DATABASE;
  return [
    ["tokens-file", tokensFile !== undefined ? problemsOf(readAuthTokens(tokensFile, inline.success ? inline.data : [])) : []],
    ["tls-files", tls.success ? problemsOf(readTlsFiles(tls.data)) : []],
    ["etcd-tls-files", data["store"] === "etcd" && etcd.success ? problemsOf(readEtcdTls(toEtcdConfig(etcd.data))) : []],
    ["kubeconfig", typeof kubeconfig === "string" && kubeconfig !== "" ? await kubeconfigProblems(kubeconfig) : []],
    ["in-cluster-credentials", isMapping(kubernetes) && kubeconfig === undefined && !env["KUBERNETES_SERVICE_HOST"] ? [IN_CLUSTER_PROBLEM] : []],
    ["commands", commandFileProblems(data, env["PATH"])],
    ["database-path", sqlite && typeof database === "string" && database !== "" ? databasePathProblems(database) : []],
  ];
}

const IN_CLUSTER_PROBLEM: ConfigProblem = {
  path: "kubernetes",
  message:
    "names no kubeconfig, so it means the Pod's in-cluster credentials, but kintsugi does not run in a Kubernetes Pod here (KUBERNETES_SERVICE_HOST is not set): set kubernetes.kubeconfig",
};

function problemsOf(read: { ok: true } | { ok: false; problems: readonly ConfigProblem[] }): ConfigProblem[] {
  return read.ok ? [] : [...read.problems];
}

// The client library is loaded only when a kubeconfig is named: importing it costs about 25 MB of resident memory
// (bundled by the build, src/adapters/kube-client.ts).
async function kubeconfigProblems(path: string): Promise<ConfigProblem[]> {
  const { loadKubeconfigFile } = await import("../adapters/kubeconfig-file.js");
  try {
    loadKubeconfigFile(path);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems.map((p) => ({ path: "kubernetes.kubeconfig", message: `${path}: ${p.message}` }));
  }
}

/**
 * Runs every start check (see {@link START_CHECKS}) on the config file at `path`, where `serve` would run: relative
 * paths from the working directory, programs and in-cluster credentials from `env`. A file that is not YAML stops
 * the checks there; otherwise every check runs and every problem is listed, in a stable order (by check, then as the
 * file is written). With no problem, the config is loaded as `serve` loads it.
 */
export async function runStartChecks(path: string, env: StartEnvironment): Promise<StartReport> {
  const refused = (check: StartCheck, err: unknown): StartReport => {
    if (!(err instanceof ConfigError)) throw err;
    return { problems: err.problems.map((p) => ({ check, ...p })), warnings: [], loaded: null };
  };
  let text: string;
  try {
    text = readConfigText(path);
  } catch (err) {
    return refused("config-file", err);
  }
  let data: Record<string, unknown>;
  try {
    data = readConfigData(text, path);
  } catch (err) {
    return refused("yaml", err);
  }
  const found: Array<[StartCheck, ConfigProblem[]]> = [["schema", schemaProblems(data)], ...(await fileChecks(data, env))];
  const problems = found.flatMap(([check, list]) => list.map((p) => ({ check, ...p })));
  const warnings = configWarnings(data);
  if (problems.length > 0) return { problems, warnings, loaded: null };
  try {
    return { problems, warnings, loaded: loadConfigFileWithWarnings(path) };
  } catch (err) {
    // The loader reads the file and the files it names again: one changed in between is refused as the checks found it.
    return { ...refused("schema", err), warnings };
  }
}

/**
 * The config `serve` starts with: every start check passed, and the file loaded.
 *
 * @throws ConfigError listing every problem, one per line.
 */
export async function loadConfigForStart(path: string, env: StartEnvironment): Promise<LoadedConfig> {
  const report = await runStartChecks(path, env);
  if (report.loaded === null) throw new ConfigError(path, report.problems);
  return report.loaded;
}
