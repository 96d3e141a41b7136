import { X509Certificate } from "node:crypto";
import { FileTooLargeError, readTextBounded } from "../support/bounded-read.js";
import { createSecureContext } from "node:tls";
import type { PemSource } from "./etcd-config.js";
import type { ConfigProblem } from "./load-config.js";

/** PEM material and the config key it is set at (`tls.cert_file`, `etcd.tls-ca`), which its problems name. */
export interface PemAt {
  readonly path: string;
  readonly source: PemSource;
}

const READ_ERRORS: Record<string, string> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "is a directory",
};

/** Why reading a file failed: in words for the common causes, else the error's code (node's message repeats the path). */
export function readFailure(error: unknown): string {
  if (error instanceof FileTooLargeError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  return (code === undefined ? undefined : READ_ERRORS[code]) ?? code ?? (error as Error).message;
}

// Messages name the file and what is wrong, never the content: a key must not end up in a log.
const label = ({ source }: PemAt): string => ("file" in source ? `${source.file}: ` : "");

// What OpenSSL disliked, without the text it was given.
function opensslReason(error: unknown): string {
  const message = (error as Error).message ?? String(error);
  const reason = /::(.+)$/.exec(message)?.[1] ?? message;
  return reason.replace(/[\r\n].*$/s, "").slice(0, 120);
}

/** The PEM text of `at`, or null with the problem added (a file that cannot be read). */
export function readPem(at: PemAt, problems: ConfigProblem[]): string | null {
  if ("pem" in at.source) return at.source.pem;
  try {
    return readTextBounded(at.source.file);
  } catch (error) {
    problems.push({ path: at.path, message: `${label(at)}cannot read: ${readFailure(error)}` });
    return null;
  }
}

/** Whether `pem` holds a certificate X.509 parses, the problem added when not. */
export function checkCertificate(at: PemAt, pem: string, problems: ConfigProblem[]): boolean {
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    problems.push({ path: at.path, message: `${label(at)}no PEM certificate (-----BEGIN CERTIFICATE-----)` });
    return false;
  }
  try {
    new X509Certificate(pem);
    return true;
  } catch (error) {
    problems.push({ path: at.path, message: `${label(at)}not a valid PEM certificate (${opensslReason(error)})` });
    return false;
  }
}

/**
 * Whether `keyPem` is a private key that belongs to the certificate `certPem` (a TLS context is built to tell, as
 * the TLS stack will), the problem added at the key when not.
 */
export function checkKeyPair(cert: PemAt, certPem: string, key: PemAt, keyPem: string, problems: ConfigProblem[]): boolean {
  try {
    createSecureContext({ cert: certPem, key: keyPem });
    return true;
  } catch (error) {
    const reason = opensslReason(error);
    const certificate = "file" in cert.source ? cert.source.file : cert.path;
    const message = /key values mismatch/i.test(reason)
      ? `this key does not belong to the certificate in ${certificate}`
      : `not a usable PEM private key (${reason})`;
    problems.push({ path: key.path, message: `${label(key)}${message}` });
    return false;
  }
}
