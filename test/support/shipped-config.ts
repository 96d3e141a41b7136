import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import YAML from "yaml";
import { runCli, type CliResult } from "./run-cli.js";
import { issueClientCertificate, testServerCertificate } from "./test-ca.js";
import { tempDir } from "./temp-dir.js";

// Where shipped configs keep what an operator provides, where their state goes, and where the commands are installed.
const COMMANDS_ROOT = "/usr/local/libexec/kintsugi/";
const ROOTS = ["/etc/kintsugi/", "/var/lib/kintsugi/", COMMANDS_ROOT];

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

/**
 * The files a config names, made as an operator makes them: the tokens file holds the line `kintsugi token create`
 * prints, the TLS files a certificate and key of the test CA, the etcd files a CA and a client certificate, the
 * kubeconfig a cluster, user and context. Keyed by the config's key path.
 */
async function fileMakers(): Promise<Record<string, FileMaker>> {
  const server = await testServerCertificate();
  const etcdClient = issueClientCertificate(server.ca, "kintsugi");
  const token = async () => {
    const created = await runCli(["token", "create", "deploy-check", "--role", "admin"]);
    if (created.code !== 0) throw new Error(`kintsugi token create failed: ${created.stderr}`);
    return `${created.stdout.split("\n")[1]}\n`;
  };
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": Buffer.from(server.ca.certPem).toString("base64") } }],
    users: [{ name: "kintsugi", user: { token: "deploy-check" } }],
    contexts: [{ name: "c", context: { cluster: "c", user: "kintsugi" } }],
    "current-context": "c",
  };
  return {
    "auth.tokens_file": token,
    "tls.cert_file": async () => server.certPem,
    "tls.key_file": async () => server.keyPem,
    "tls.client_ca_file": async () => server.ca.certPem,
    "etcd.tls-ca-file": async () => server.ca.certPem,
    "etcd.tls-cert-file": async () => (await etcdClient).certPem,
    "etcd.tls-key-file": async () => (await etcdClient).keyPem,
    "kubernetes.kubeconfig": async () => JSON.stringify(kubeconfig),
  };
}

/**
 * Runs the real `kintsugi check-config` on a config shipped in deploy/ as it would run where it is installed: the
 * files the config names under /etc/kintsugi and /var/lib/kintsugi are made (see {@link fileMakers}), and the commands
 * it names under /usr/local/libexec/kintsugi as executable stand-ins, in a temporary directory standing for the root;
 * the config is checked with those prefixes pointing there (in a Pod's environment when it means in-cluster
 * credentials). Nothing else of the config is changed. A path the config names that no maker knows fails, rather than going unchecked.
 */
export async function checkShippedConfig(text: string, name: string): Promise<CliResult> {
  const root = tempDir("kintsugi-shipped-config-");
  try {
    const config: unknown = YAML.parse(text);
    const makers = await fileMakers();
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
    // The installed commands: check-config asks only that each is an executable file.
    for (const command of pathsIn(config).filter((path) => path.startsWith(COMMANDS_ROOT))) {
      const file = join(root.path, command);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
      provided.add(command);
    }
    const unknown = pathsIn(config).filter((path) => !provided.has(path));
    if (unknown.length > 0) throw new Error(`${name} names files the check does not know how to make: ${unknown.join(", ")}`);
    const moved = ROOTS.reduce((result, prefix) => result.replaceAll(prefix, join(root.path, prefix) + "/"), text);
    const file = join(root.path, name);
    writeFileSync(file, moved);
    // A kubernetes section without a kubeconfig means the Pod's credentials: checked as in the Pod it is made for.
    const inPod = at(config, "kubernetes.kubeconfig") === undefined && (config as { kubernetes?: unknown }).kubernetes !== undefined;
    return await runCli(["check-config", file], inPod ? { env: { ...process.env, KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" } } : {});
  } finally {
    root.remove();
  }
}
