import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import YAML from "yaml";
import { testKubeconfig } from "./fake-kube-api.js";
import { runCli, type CliResult } from "./run-cli.js";
import { issueClientCertificate, testServerCertificate } from "./test-ca.js";
import { tempDir } from "./temp-dir.js";

// Where shipped configs keep what an operator provides, where their state goes, and where the commands are installed.
const COMMANDS_ROOT = "/usr/local/libexec/kintsugi/";
const ROOTS = ["/etc/kintsugi/", "/var/lib/kintsugi/", COMMANDS_ROOT];
const SHIPPED_COMMANDS = resolve("deploy/commands");
/** Where a Pod's config (`kubernetes: {}`) finds its cluster outside a Pod: a kubeconfig in the operator's files. */
const POD_KUBECONFIG = "/etc/kintsugi/kubeconfig";

type FileMaker = () => Promise<string>;

/** The value at a dotted key path (`etcd.tls-ca-file`) of a parsed config, when it is a string. */
function at(config: unknown, path: string): string | undefined {
  let value: unknown = config;
  for (const key of path.split(".")) value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** Every string in a parsed config that names a file under one of {@link ROOTS}. */
function pathsIn(value: unknown): string[] {
  if (typeof value === "string") return ROOTS.some((root) => value.startsWith(root)) ? [value] : [];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(pathsIn);
}

/** Where a shipped config runs: the services it names, on this machine. Absent: the config's own (never contacted). */
export interface Endpoints {
  /** The test sabakan's URL (sabakan.url). */
  readonly sabakanUrl?: string;
  /** The test etcd's client URLs (etcd.endpoints). */
  readonly etcdEndpoints?: readonly string[];
  /** The test Kubernetes API's URL: the kubeconfig points there; a Pod's in-cluster credentials become that kubeconfig. */
  readonly kubernetesUrl?: string;
}

/**
 * The files a config names, made as an operator makes them: the tokens file holds the line `kintsugi token create`
 * prints, the TLS files a certificate and key of the test CA, the etcd files the CA and a client certificate, the
 * kubeconfig a cluster, user and context. Keyed by the config's key path. `token` receives the token's secret.
 */
async function fileMakers(kubernetesUrl: string, token: (secret: string) => void): Promise<Record<string, FileMaker>> {
  const server = await testServerCertificate();
  const etcdClient = issueClientCertificate(server.ca, "kintsugi");
  const tokensFile = async () => {
    const created = await runCli(["token", "create", "deploy-check", "--role", "admin"]);
    if (created.code !== 0) throw new Error(`kintsugi token create failed: ${created.stderr}`);
    const [secret, line] = created.stdout.split("\n");
    token(secret as string);
    return `${line}\n`;
  };
  return {
    "auth.tokens_file": tokensFile,
    "tls.cert_file": async () => server.certPem,
    "tls.key_file": async () => server.keyPem,
    "tls.client_ca_file": async () => server.ca.certPem,
    "etcd.tls-ca-file": async () => server.ca.certPem,
    "etcd.tls-cert-file": async () => (await etcdClient).certPem,
    "etcd.tls-key-file": async () => (await etcdClient).keyPem,
    "kubernetes.kubeconfig": async () => testKubeconfig(kubernetesUrl, server.ca.certPem),
  };
}

/** A shipped config installed under a temporary root, as an operator installs it. */
export interface InstalledConfig {
  /** The temporary directory standing for `/`: the config's /etc/kintsugi is `root/etc/kintsugi`. */
  readonly root: string;
  /** The config file, its paths moved under `root`. */
  readonly file: string;
  /** The secret of the admin token in the config's tokens file, when it names one. */
  readonly token: string | null;
  /** The CA of the server certificate, when the config serves TLS (clients pass it as --ca). */
  readonly caPem: string | null;
  /** The site's own tools the config names (reboot, notify-repaired): stand-ins that log each call here. */
  readonly siteToolCalls: string;
  /** The environment `serve` needs there: none unless the config means a Pod's credentials (then KUBERNETES_SERVICE_*). */
  readonly env: NodeJS.ProcessEnv;
  remove(): void;
}

/**
 * Installs a config shipped in deploy/ as it would be installed, under a temporary directory standing for the root:
 * the files it names under /etc/kintsugi and /var/lib/kintsugi are made (see {@link fileMakers}); with `commands:
 * "shipped"` deploy/commands are installed in /usr/local/libexec/kintsugi and the site's own tools it names are
 * stand-ins that log their calls, else every command it names is a stand-in. Nothing of the config changes but its
 * endpoints (`listen` on a free loopback port, `endpoints`) and, outside a Pod, a Pod's in-cluster credentials
 * (`kubernetes: {}`), which become the operator's kubeconfig. A path the config names that no maker knows fails
 * rather than going unchecked.
 */
export async function installShippedConfig(
  text: string,
  name: string,
  options: { endpoints?: Endpoints; commands?: "shipped" | "stand-ins" } = {},
): Promise<InstalledConfig> {
  const endpoints = options.endpoints ?? {};
  const root = tempDir("kintsugi-shipped-config-");
  try {
    const doc = YAML.parseDocument(text);
    const inPod = doc.get("kubernetes") !== undefined && doc.getIn(["kubernetes", "kubeconfig"]) === undefined;
    if (endpoints.kubernetesUrl !== undefined && inPod) doc.setIn(["kubernetes", "kubeconfig"], POD_KUBECONFIG);
    if (endpoints.sabakanUrl !== undefined) doc.setIn(["sabakan", "url"], endpoints.sabakanUrl);
    if (endpoints.etcdEndpoints !== undefined) doc.setIn(["etcd", "endpoints"], [...endpoints.etcdEndpoints]);
    if (Object.keys(endpoints).length > 0) doc.set("listen", "127.0.0.1:0");
    const installed = doc.toString({ lineWidth: 0 });
    const config: unknown = YAML.parse(installed);
    let token: string | null = null;
    const makers = await fileMakers(endpoints.kubernetesUrl ?? "https://127.0.0.1:6443", (secret) => (token = secret));
    const provided = new Set<string>();
    for (const [key, make] of Object.entries(makers)) {
      const path = at(config, key);
      if (path === undefined) continue;
      const file = join(root.path, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, await make(), { mode: 0o640 });
      provided.add(path);
    }
    const database = at(config, "database");
    if (database !== undefined) {
      mkdirSync(dirname(join(root.path, database)), { recursive: true });
      provided.add(database);
    }
    const siteToolCalls = join(root.path, "site-tool-calls");
    writeFileSync(siteToolCalls, "");
    const libexec = join(root.path, COMMANDS_ROOT);
    mkdirSync(libexec, { recursive: true });
    if (options.commands === "shipped")
      for (const command of readdirSync(SHIPPED_COMMANDS)) copyFileSync(join(SHIPPED_COMMANDS, command), join(libexec, command));
    for (const command of pathsIn(config).filter((path) => path.startsWith(COMMANDS_ROOT))) {
      const file = join(root.path, command);
      if (!readdirSync(libexec).includes(command.slice(COMMANDS_ROOT.length)))
        writeFileSync(file, `#!/bin/sh\necho "${command.slice(COMMANDS_ROOT.length)} $*" >> '${siteToolCalls}'\n`, { mode: 0o755 });
      provided.add(command);
    }
    const unknown = pathsIn(config).filter((path) => !provided.has(path));
    if (unknown.length > 0) throw new Error(`${name} names files the check does not know how to make: ${unknown.join(", ")}`);
    const moved = ROOTS.reduce((result, prefix) => result.replaceAll(prefix, join(root.path, prefix) + "/"), installed);
    const file = join(root.path, name);
    writeFileSync(file, moved);
    const caPem = at(config, "tls.cert_file") !== undefined ? (await testServerCertificate()).ca.certPem : null;
    // A kubernetes section without a kubeconfig means the Pod's credentials: checked as in the Pod it is made for.
    const env = inPod && endpoints.kubernetesUrl === undefined ? { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" } : {};
    return { root: root.path, file, token, caPem, siteToolCalls, env, remove: root.remove };
  } catch (err) {
    root.remove();
    throw err;
  }
}

/**
 * Runs the real `kintsugi check-config` on a config shipped in deploy/ as it would run where it is installed (see
 * {@link installShippedConfig}; every command a stand-in, in a Pod's environment when it means in-cluster credentials).
 * Nothing of the config is changed.
 */
export async function checkShippedConfig(text: string, name: string): Promise<CliResult> {
  const installed = await installShippedConfig(text, name);
  try {
    return await runCli(["check-config", installed.file], Object.keys(installed.env).length > 0 ? { env: { ...process.env, ...installed.env } } : {});
  } finally {
    installed.remove();
  }
}
