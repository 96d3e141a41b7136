import { FileTooLargeError, readTextBounded } from "../support/bounded-read.js";
import type { ClientTls } from "../adapters/tls-transport.js";
import { CliError } from "./cli-error.js";

/** The file names given on the command line (or in KINTSUGI_CA, KINTSUGI_CERT, KINTSUGI_KEY). */
export interface ClientTlsFiles {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

// The words of config/named-files.ts's readFailure, kept here: the CLI's front bundle holds nothing of config/
// (test/cli/cli-modules.test.ts), and every operator command reads these options.
function readPem(file: string, option: string): string {
  try {
    return readTextBounded(file);
  } catch (error) {
    if (error instanceof FileTooLargeError) throw new CliError(`${option} ${file}: cannot read: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      `${option} ${file}: cannot read: ${code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (code ?? "unreadable")}`,
    );
  }
}

/** Reads the TLS files the options name; null when none is given (the system's trust store, no client certificate). */
export function readClientTls(files: ClientTlsFiles): ClientTls | null {
  if ((files.cert === undefined) !== (files.key === undefined)) throw new CliError("--cert and --key go together: a client certificate needs its key");
  if (files.ca === undefined && files.cert === undefined) return null;
  return {
    ...(files.ca !== undefined && { ca: readPem(files.ca, "--ca") }),
    ...(files.cert !== undefined && { cert: readPem(files.cert, "--cert") }),
    ...(files.key !== undefined && { key: readPem(files.key, "--key") }),
  };
}

/**
 * Names a TLS failure so that the operator knows what to pass; null for other errors. Over TLS 1.3 a server that
 * refuses the client's certificate (or its absence) closes the connection after the handshake: the client reads
 * the alert (ERR_SSL_TLSV13_ALERT_...), or only the closed socket (`https` says the server is one).
 */
export function certificateHint(code: string | undefined, https = false): string | null {
  if ((code === "UND_ERR_SOCKET" || code === "ECONNRESET") && https)
    return `${code}: the server closed the connection; a server with tls.client_ca_file does so without a client certificate it trusts (pass --cert FILE --key FILE)`;
  if (code === undefined) return null;
  if (/ALERT_CERTIFICATE_REQUIRED|ALERT_BAD_CERTIFICATE|ALERT_UNKNOWN_CA/.test(code))
    return `${code}: the server closed the connection; it wants a client certificate it trusts (pass --cert FILE --key FILE)`;
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code))
    return `${code}: the server's certificate is not trusted (pass --ca FILE with the CA that signed it)`;
  return null;
}
