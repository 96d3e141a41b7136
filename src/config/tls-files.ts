import { z } from "../support/zod.js";
import type { ConfigProblem } from "./load-config.js";
import { checkCertificate, checkKeyPair, readPem, type PemAt } from "./named-files.js";

/** The `tls` section as written: PEM files kintsugi serves HTTPS and WSS with. */
export const tlsSection = z.strictObject({
  cert_file: z.string().min(1),
  key_file: z.string().min(1),
  /** When set, every client must present a certificate this CA signed (checked in the TLS handshake). */
  client_ca_file: z.string().min(1).optional(),
});

export type TlsSection = z.output<typeof tlsSection>;

/** The TLS material, read and checked: the server's certificate chain and key, and the CA for client certificates. */
export interface TlsConfig {
  readonly certPem: string;
  readonly keyPem: string;
  /** null = no client certificates asked for. */
  readonly clientCaPem: string | null;
}

/**
 * Reads the files of the `tls` section and checks them as the server will use them: each certificate parses, the key
 * parses and matches the certificate (node's TLS context is built once here to tell). Relative paths are taken from
 * the working directory, as `database`.
 */
export function readTlsFiles(section: TlsSection): { ok: true; tls: TlsConfig } | { ok: false; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const at = (key: keyof TlsSection, file: string): PemAt => ({ path: `tls.${key}`, source: { file } });
  const cert = at("cert_file", section.cert_file);
  const key = at("key_file", section.key_file);
  const clientCa = section.client_ca_file === undefined ? null : at("client_ca_file", section.client_ca_file);
  const certPem = readPem(cert, problems);
  const keyPem = readPem(key, problems);
  const clientCaPem = clientCa === null ? null : readPem(clientCa, problems);
  const certOk = certPem !== null && checkCertificate(cert, certPem, problems);
  if (clientCa !== null && clientCaPem !== null) checkCertificate(clientCa, clientCaPem, problems);
  if (certOk && keyPem !== null) checkKeyPair(cert, certPem, key, keyPem, problems);
  if (problems.length > 0 || certPem === null || keyPem === null) return { ok: false, problems };
  return { ok: true, tls: { certPem, keyPem, clientCaPem } };
}
