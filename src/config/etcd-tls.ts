import type { EtcdConfig, PemSource } from "./etcd-config.js";
import type { ConfigProblem } from "./load-config.js";
import { checkCertificate, checkKeyPair, readPem, type PemAt } from "./named-files.js";

/** The TLS material of the `etcd` section, read and checked. */
export interface EtcdTls {
  /** The CA of etcd's server certificates; null = the system's CAs. */
  readonly caPem: string | null;
  /** The client certificate and its key; null = none. */
  readonly client: { readonly certPem: string; readonly keyPem: string } | null;
}

const at = (kind: "ca" | "cert" | "key", source: PemSource): PemAt => ({ path: "file" in source ? `etcd.tls-${kind}-file` : `etcd.tls-${kind}`, source });

/**
 * Reads the TLS material the `etcd` section names (files now, as the client is built) and checks it as the TLS stack
 * will use it: each certificate parses, the key matches the client certificate. Every problem is named.
 */
export function readEtcdTls(config: EtcdConfig): { ok: true; tls: EtcdTls } | { ok: false; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  let caPem: string | null = null;
  if (config.tlsCa !== null) {
    const ca = at("ca", config.tlsCa);
    const pem = readPem(ca, problems);
    if (pem !== null && checkCertificate(ca, pem, problems)) caPem = pem;
  }
  let client: EtcdTls["client"] = null;
  if (config.tlsClient !== null) {
    const cert = at("cert", config.tlsClient.cert);
    const key = at("key", config.tlsClient.key);
    const certPem = readPem(cert, problems);
    const keyPem = readPem(key, problems);
    const usable = certPem !== null && keyPem !== null && checkCertificate(cert, certPem, problems) && checkKeyPair(cert, certPem, key, keyPem, problems);
    if (usable) client = { certPem, keyPem };
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, tls: { caPem, client } };
}

/** The etcd client cannot be built from the config: every problem, one per line, as `path: message`. */
export class EtcdClientConfigError extends Error {
  override readonly name = "EtcdClientConfigError";
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join("\n"));
  }
}
