import { dirname } from "node:path";
import { parse as parseYaml } from "../domain/shared/yaml.js";
import * as k8s from "./kube-client.js";
import { ConfigError } from "../config/load-config.js";
import { readFailure } from "../config/named-files.js";
import { readFileBounded, readTextBounded } from "../support/bounded-read.js";

// The client library's own complaints about a list entry name an index and a key, never a value.
const MISSING_FIELD = /^(?:clusters|contexts|users)\[\d+\]\.[a-z.-]+ is missing$/;

/**
 * Reads the kubeconfig at `path` into a KubeConfig whose current context names a cluster. A kubeconfig holds
 * client keys and tokens, and the YAML parser quotes the lines around a syntax error, so every failure is a
 * ConfigError that names the file and what is wrong (a line and column for bad YAML) but carries none of its
 * content, not even as a cause.
 *
 * @throws ConfigError when the file cannot be read, is not YAML, is not shaped as a kubeconfig, or its
 *   current-context does not lead to a cluster.
 */
export function loadKubeconfigFile(path: string): k8s.KubeConfig {
  const refuse = (message: string): ConfigError => new ConfigError(path, [{ path: "", message }]);
  let text: string;
  try {
    text = readTextBounded(path);
  } catch (error) {
    throw refuse(`cannot read the kubeconfig: ${readFailure(error)}`);
  }
  checkTokenFiles(text, refuse);
  const config = new k8s.KubeConfig();
  try {
    config.loadFromString(text);
  } catch (error) {
    throw refuse(loadFailure(error));
  }
  config.makePathsAbsolute(dirname(path));
  const current = config.getCurrentContext();
  if (!current) throw refuse("the kubeconfig has no current-context");
  if (!config.getContextObject(current)) throw refuse("the kubeconfig's current-context names a context it does not define");
  if (!config.getCurrentCluster()) throw refuse("the kubeconfig's current context names a cluster it does not define");
  checkNamedFiles(config, refuse);
  return config;
}

/**
 * Reads the files the current context names (its cluster's CA, its user's certificate, key and auth-provider token
 * file) once, within the bound of every file a config names: the client library reads them whole at each request, so
 * one that cannot be read, or never ends (/dev/zero), is refused now, by its key and path, not found at the first
 * request. They stay files, read again at each request, so that a certificate rotated on disk is used.
 */
function checkNamedFiles(config: k8s.KubeConfig, refuse: (message: string) => ConfigError): void {
  const cluster = config.getCurrentCluster();
  const user = config.getCurrentUser();
  const named: Array<[string, string | undefined]> = [
    ["certificate-authority", cluster?.caFile],
    ["client-certificate", user?.certFile],
    ["client-key", user?.keyFile],
    ["auth-provider.config.tokenFile", (user?.authProvider as { config?: { tokenFile?: string } } | undefined)?.config?.tokenFile],
  ];
  for (const [key, file] of named) {
    if (!file) continue;
    try {
      readFileBounded(file);
    } catch (error) {
      throw refuse(`${key}: ${file}: cannot read: ${readFailure(error)}`);
    }
  }
}

/**
 * The client library reads every user's `token-file` whole while it parses the kubeconfig (a path relative to the
 * working directory), before anything could check it: each is read here first, within the bound, and one that cannot
 * be read is refused by its user's index and its path. A text this parser cannot read is left to the library's parse,
 * whose error names the line.
 */
function checkTokenFiles(text: string, refuse: (message: string) => ConfigError): void {
  let users: unknown;
  try {
    users = (parseYaml(text, { logLevel: "silent" }) as { users?: unknown } | null)?.users;
  } catch {
    return;
  }
  if (!Array.isArray(users)) return;
  users.forEach((entry: unknown, i) => {
    const user = typeof entry === "object" && entry !== null ? (entry as { user?: unknown }).user : undefined;
    const file = typeof user === "object" && user !== null ? (user as Record<string, unknown>)["token-file"] : undefined;
    if (typeof file !== "string" || file === "") return;
    try {
      readFileBounded(file);
    } catch (error) {
      throw refuse(`users[${i}].user.token-file: ${file}: cannot read: ${readFailure(error)}`);
    }
  });
}

/** What went wrong while parsing, told without the text around it. */
function loadFailure(error: unknown): string {
  const yaml = yamlFailure(error);
  if (yaml) return yaml;
  const message = error instanceof Error ? error.message : "";
  if (MISSING_FIELD.test(message)) return `the kubeconfig is malformed: ${message}`;
  return "the kubeconfig is malformed: it is empty, or its top level, clusters, contexts or users are not shaped as a kubeconfig's";
}

/**
 * js-yaml's YAMLException: its message ends with a snippet of the file, so only its position and its reason are
 * used, and any quoted name, tag or trailing value in the reason (an alias, a tag handle) is elided.
 */
function yamlFailure(error: unknown): string | null {
  if (!(error instanceof Error) || error.name !== "YAMLException") return null;
  const { reason, mark } = error as Error & { reason?: unknown; mark?: { line?: unknown; column?: unknown } };
  const line = typeof mark?.line === "number" ? mark.line + 1 : null;
  const column = typeof mark?.column === "number" ? mark.column + 1 : null;
  const where = line === null ? "" : column === null ? ` at line ${line}` : ` at line ${line}, column ${column}`;
  const why = typeof reason === "string" ? elideValues(reason) : "";
  return `the kubeconfig is not valid YAML${where}${why ? ` (${why})` : ""}`;
}

function elideValues(reason: string): string {
  return (reason.split("\n")[0] ?? "")
    .replace(/"[^"]*"?/g, '"…"')
    .replace(/'[^']*'?/g, "'…'")
    .replace(/!<[^>]*>?/g, "!<…>")
    .replace(/:\s.*$/, ": …");
}
