import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { createSecureContext } from "node:tls";
import { z } from "zod";

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

/** One thing wrong with the TLS files, at a key of the `tls` section. */
export interface TlsProblem {
  readonly path: string;
  readonly message: string;
}

const READ_ERRORS: Record<string, string> = { ENOENT: "no such file", EACCES: "permission denied", EISDIR: "is a directory" };

// Messages name the file and what OpenSSL disliked, never the content: a key file must not end up in a log.
function opensslReason(error: unknown): string {
  const message = (error as Error).message ?? String(error);
  const reason = /::(.+)$/.exec(message)?.[1] ?? message;
  return reason.replace(/[\r\n].*$/s, "").slice(0, 120);
}

function readPem(file: string, key: string, problems: TlsProblem[]): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    problems.push({ path: `tls.${key}`, message: `${file}: cannot read: ${READ_ERRORS[code] ?? (code || "unreadable")}` });
    return null;
  }
}

function checkCertificate(pem: string, file: string, key: string, problems: TlsProblem[]): boolean {
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    problems.push({ path: `tls.${key}`, message: `${file}: no PEM certificate (-----BEGIN CERTIFICATE-----) in the file` });
    return false;
  }
  try {
    new X509Certificate(pem);
    return true;
  } catch (error) {
    problems.push({ path: `tls.${key}`, message: `${file}: not a valid PEM certificate (${opensslReason(error)})` });
    return false;
  }
}

/**
 * Reads the files of the `tls` section and checks them as the server will use them: each certificate parses, the key
 * parses and matches the certificate (node's TLS context is built once here to tell). Relative paths are taken from
 * the working directory, as `database`.
 */
export function readTlsFiles(section: TlsSection): { ok: true; tls: TlsConfig } | { ok: false; problems: TlsProblem[] } {
  const problems: TlsProblem[] = [];
  const certPem = readPem(section.cert_file, "cert_file", problems);
  const keyPem = readPem(section.key_file, "key_file", problems);
  const clientCaPem = section.client_ca_file === undefined ? null : readPem(section.client_ca_file, "client_ca_file", problems);
  const certOk = certPem !== null && checkCertificate(certPem, section.cert_file, "cert_file", problems);
  if (clientCaPem !== null) checkCertificate(clientCaPem, section.client_ca_file as string, "client_ca_file", problems);
  if (certOk && keyPem !== null) {
    try {
      createSecureContext({ cert: certPem, key: keyPem });
    } catch (error) {
      const reason = opensslReason(error);
      const message = /key values mismatch/i.test(reason)
        ? `${section.key_file}: this key does not belong to the certificate in ${section.cert_file}`
        : `${section.key_file}: not a usable PEM private key (${reason})`;
      problems.push({ path: "tls.key_file", message });
    }
  }
  if (problems.length > 0 || certPem === null || keyPem === null) return { ok: false, problems };
  return { ok: true, tls: { certPem, keyPem, clientCaPem } };
}
