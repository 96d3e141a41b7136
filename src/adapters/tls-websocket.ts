import { WebSocket } from "./ws.js";
import type { ClientTls } from "./tls-transport.js";

/** The `ws` WebSocket class graphql-ws should use: with `tls`, it verifies the server with `tls.ca` and presents `tls.cert`. */
export function webSocketWithTls(tls: ClientTls | null): typeof WebSocket {
  if (tls === null) return WebSocket;
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols, { ...tls });
    }
  } as typeof WebSocket;
}
