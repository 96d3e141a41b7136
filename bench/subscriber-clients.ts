// Many graphql-ws subscribers for a bench, connected as real clients would be: from several client addresses (the
// loopback's 127.0.0.x, so each stays within the server's default limits.max_connections_per_address), a bounded
// number of handshakes in flight at once (a thousand clients do not all open their socket in the same millisecond),
// and graphql-ws's own retries with its randomised backoff (a client closed by the server's connection_init window or
// its "try again later" retries, as graphql-ws's client does by default).
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { DEFAULT_LIMITS } from "../src/config/limits.js";

/** How the subscribers connected: the seconds it took, how many reconnections, and the close codes seen. */
export interface SubscriberConnections {
  readonly seconds: number;
  readonly addresses: number;
  readonly retries: number;
  /** Close code -> times seen (a close while connecting or after; a code the bench's own dispose sends is left out). */
  readonly closes: ReadonlyMap<number, number>;
  /** Closes every client (their closes are not counted). */
  dispose(): Promise<void>;
}

export interface SubscriberOptions {
  /** ws:// URL of the server's /graphql, on 127.0.0.1 (the clients bind 127.0.0.1 to 127.0.0.N). */
  readonly url: string;
  readonly count: number;
  readonly query: string;
  /** Called on each event any subscriber receives. */
  readonly onEvent: () => void;
  /** Clients per address (default: the server's default limits.max_connections_per_address). */
  readonly perAddress?: number;
  /** Handshakes not yet acknowledged at once (default 25). */
  readonly inFlight?: number;
  /** Gives up after this long (default 600 s). */
  readonly withinMs?: number;
  /** The wait before a client's retry (default graphql-ws's: 2^retries s plus 0.3-3 s at random). */
  readonly retryWait?: (retries: number) => Promise<void>;
}

/** A WebSocket class whose connections leave from `localAddress`. */
function boundWebSocket(localAddress: string): unknown {
  return class BoundWebSocket extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols, { localAddress });
    }
  };
}

/** Connects `count` subscribers, each with one subscription; resolves once every one is acknowledged. */
export async function connectSubscribers(options: SubscriberOptions): Promise<SubscriberConnections> {
  const perAddress = options.perAddress ?? DEFAULT_LIMITS.maxConnectionsPerAddress;
  const inFlight = options.inFlight ?? 25;
  const addresses = Math.ceil(options.count / perAddress);
  if (addresses > 250) throw new Error(`${options.count} subscribers need more than 250 loopback addresses`);
  const sockets = Array.from({ length: addresses }, (_, a) => boundWebSocket(`127.0.0.${a + 1}`));
  const clients: Client[] = [];
  const closes = new Map<number, number>();
  let retries = 0;
  let disposing = false;
  const began = performance.now();
  // A client still connecting answers dispose with its failed connection's close event: it is closed all the same.
  const disposeAll = async () => {
    disposing = true;
    await Promise.all(clients.map(async (c) => c.dispose()?.catch(() => undefined)));
  };
  const deadline = Date.now() + (options.withinMs ?? 600_000);

  const connectOne = (i: number) =>
    new Promise<void>((resolve, reject) => {
      let attempts = 0;
      const client = createClient({
        url: options.url,
        webSocketImpl: sockets[Math.floor(i / perAddress)],
        ...(options.retryWait ? { retryWait: options.retryWait } : {}),
        on: {
          connecting: () => void (attempts++ > 0 && retries++),
          connected: () => resolve(),
          closed: (event) => {
            const code = (event as { code?: number }).code ?? 0;
            if (!disposing) closes.set(code, (closes.get(code) ?? 0) + 1);
          },
        },
      });
      clients.push(client);
      client.subscribe(
        { query: options.query },
        {
          next: options.onEvent,
          error: (err) => reject(new Error(`subscriber ${i} gave up after ${attempts} attempts: ${describe(err)}`)),
          complete: () => {},
        },
      );
    });

  let next = 0;
  try {
    const worker = async () => {
      while (next < options.count) {
        if (Date.now() > deadline) throw new Error(`timed out: ${next} of ${options.count} subscribers started`);
        await connectOne(next++);
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, options.count) }, worker));
  } catch (err) {
    next = options.count;
    await disposeAll();
    throw err;
  }
  return {
    seconds: (performance.now() - began) / 1000,
    addresses,
    retries,
    closes,
    dispose: disposeAll,
  };
}

/** A close event or error as one line. */
function describe(err: unknown): string {
  if (typeof err === "object" && err !== null && "code" in err) {
    const e = err as { code: number; reason?: string };
    return `closed ${e.code}${e.reason ? ` (${e.reason})` : ""}`;
  }
  return String(err).slice(0, 200);
}
