import { createServer, type AddressInfo, type Server as NetServer, type Socket } from "node:net";
import type { Server } from "node:http";

/** The listen address cannot be bound: in use, not allowed, or not this machine's. One line, for the operator. */
export class ListenError extends Error {
  override readonly name = "ListenError";

  /** The system's error code (`EADDRINUSE`, `EACCES`, …), so a caller with a way out of its own can offer it. */
  constructor(
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** The configured address, bound before anything else starts; the HTTP server takes it over once it is ready. */
export interface ReservedAddress {
  /** The port bound (the one the kernel chose for port 0). */
  readonly port: number;
  /** Makes `server` accept on the bound socket, with the connections that arrived meanwhile (they wait, unread). */
  handOver(server: Server): Promise<void>;
  /** Closes the socket and drops the connections held, unless it was handed over; safe to call more than once. */
  release(): Promise<void>;
}

/** Connections held while kintsugi starts; more are closed (the kernel's default backlog is as long). */
const MAX_HELD_CONNECTIONS = 511;

function hostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function listenError(host: string, port: number, err: NodeJS.ErrnoException): ListenError {
  const where = `cannot listen on ${hostPort(host, port)}`;
  const code = err.code ?? null;
  switch (err.code) {
    case "EADDRINUSE":
      return new ListenError(`${where}: the address is already in use (by another kintsugi or another program); stop it or change listen in the config`, code);
    case "EACCES":
      return new ListenError(`${where}: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE)`, code);
    case "EADDRNOTAVAIL":
      return new ListenError(`${where}: the address is not one of this machine's`, code);
    default:
      return new ListenError(`${where}: ${err.code ?? err.message}`, code);
  }
}

/**
 * Binds `host:port` at once, so that a start that cannot listen fails before it opens (and creates) the database or
 * touches etcd. Connections that arrive before the hand-over are held paused, then served as any other; beyond
 * `maxHeld` of them (a flood while kintsugi starts) they are closed at once.
 */
export async function reserveListenAddress(listen: { readonly host: string; readonly port: number }, maxHeld = MAX_HELD_CONNECTIONS): Promise<ReservedAddress> {
  const held = new Set<Socket>();
  const dropOnError = function (this: Socket) {
    held.delete(this);
    this.destroy();
  };
  const socket: NetServer = createServer({ pauseOnConnect: true }, (connection) => {
    if (held.size >= maxHeld) return void connection.destroy();
    held.add(connection);
    connection.on("error", dropOnError);
    connection.on("close", () => held.delete(connection));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", (err: NodeJS.ErrnoException) => reject(listenError(listen.host, listen.port, err)));
    socket.listen(listen.port, listen.host, () => resolve());
  });
  let owner: "reserved" | "handed-over" | "released" = "reserved";
  return {
    port: (socket.address() as AddressInfo).port,
    async handOver(server) {
      if (owner !== "reserved") throw new Error(`the listen address was already ${owner}`);
      owner = "handed-over";
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(socket, () => {
          server.off("error", reject);
          resolve();
        });
      });
      for (const connection of held) {
        connection.off("error", dropOnError);
        server.emit("connection", connection);
        connection.resume();
      }
      held.clear();
    },
    async release() {
      if (owner !== "reserved") return;
      owner = "released";
      for (const connection of held) connection.destroy();
      held.clear();
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}
