import { readFileSync } from "node:fs";
import { Agent, fetch as undiciFetch } from "undici";
import WebSocket from "ws";
import { CliError } from "./cli-error.js";

/** What the CLI trusts and presents over TLS: PEM text read from `--ca`, `--cert` and `--key`. */
export interface ClientTls {
  /** Replaces the system's trust store for this server: the CA that signed the server's certificate. */
  readonly ca?: string;
  /** A client certificate and its key, for a server with `tls.client_ca_file`. */
  readonly cert?: string;
  readonly key?: string;
}

/** The file names given on the command line (or in KINTSUGI_CA, KINTSUGI_CERT, KINTSUGI_KEY). */
export interface ClientTlsFiles {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

function readPem(file: string, option: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`${option} ${file}: cannot read: ${code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (code ?? "unreadable")}`);
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

/** A fetch for graphql-request that verifies the server with `tls.ca` and presents `tls.cert` (node's own fetch takes no CA). */
export function fetchWithTls(tls: ClientTls): typeof fetch {
  const dispatcher = new Agent({ connect: { ...tls } });
  return ((input: string | URL, init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch;
}

/** The `ws` WebSocket class graphql-ws should use: with `tls`, it verifies and presents the same as fetchWithTls. */
export function webSocketWithTls(tls: ClientTls | null): typeof WebSocket {
  if (tls === null) return WebSocket;
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols, { ...tls });
    }
  } as typeof WebSocket;
}

/**
 * Names a TLS failure so that the operator knows what to pass; null for other errors. Over TLS 1.3 a server that
 * refuses the client's certificate (or its absence) just closes the connection: `https` says the server is one.
 */
export function certificateHint(code: string | undefined, https = false): string | null {
  if (code === "UND_ERR_SOCKET" && https) return `${code}: the server closed the connection; a server with tls.client_ca_file does so without a client certificate it trusts (pass --cert FILE --key FILE)`;
  if (code === undefined) return null;
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)) return `${code}: the server's certificate is not trusted (pass --ca FILE with the CA that signed it)`;
  if (/ALERT_CERTIFICATE_REQUIRED|ALERT_BAD_CERTIFICATE|ALERT_UNKNOWN_CA/.test(code)) return `${code}: the server wants a client certificate it trusts (pass --cert FILE --key FILE)`;
  return null;
}
