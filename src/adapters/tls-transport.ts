/** What a client (the CLI, the alert bridge) trusts and presents over TLS: PEM text, e.g. read from `--ca`, `--cert` and `--key`. */
export interface ClientTls {
  /** Replaces the system's trust store for this server: the CA that signed the server's certificate. */
  readonly ca?: string;
  /** A client certificate and its key, for a server with `tls.client_ca_file`. */
  readonly cert?: string;
  readonly key?: string;
}
