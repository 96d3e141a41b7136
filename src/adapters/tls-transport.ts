import type { Agent, fetch as undiciFetch } from "undici";
import WebSocket from "ws";

/** What a client (the CLI, the alert bridge) trusts and presents over TLS: PEM text, e.g. read from `--ca`, `--cert` and `--key`. */
export interface ClientTls {
  /** Replaces the system's trust store for this server: the CA that signed the server's certificate. */
  readonly ca?: string;
  /** A client certificate and its key, for a server with `tls.client_ca_file`. */
  readonly cert?: string;
  readonly key?: string;
}

/** A fetch for graphql-request that verifies the server with `tls.ca` and presents `tls.cert` (node's own fetch takes no CA). */
export function fetchWithTls(tls: ClientTls): typeof fetch {
  // undici is loaded at the first request, not with the CLI's modules: `kintsugi serve` loads those and never calls
  // this, and undici is some 3 MB of heap.
  let loaded: Promise<{ dispatcher: Agent; undiciFetch: typeof undiciFetch }> | null = null;
  return (async (input: string | URL, init?: Parameters<typeof undiciFetch>[1]) => {
    loaded ??= import("undici").then(({ Agent, fetch }) => ({ dispatcher: new Agent({ connect: { ...tls } }), undiciFetch: fetch }));
    const { dispatcher, undiciFetch } = await loaded;
    return undiciFetch(input, { ...init, dispatcher });
  }) as unknown as typeof fetch;
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
