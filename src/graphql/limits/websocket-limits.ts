import type { GraphQLError } from "graphql";
import type { WebSocketServer } from "ws";
import { WebSocket } from "../../adapters/ws.js";
import { jsonNestedDeeperThan } from "./variable-depth.js";
import { limitError } from "../errors.js";
import { queuedBytes } from "./websocket-writes.js";

/** Close code for a connection refused because the server is at its connection limit ("try again later"). */
export const CLOSE_TRY_AGAIN_LATER = 1013;
/** Close code for a client that stopped reading (policy violation). */
export const CLOSE_POLICY_VIOLATION = 1008;
/** graphql-ws's close code for a message it cannot take (its CloseCode.BadRequest). */
export const CLOSE_BAD_REQUEST = 4400;

/** How long a connection closed for what it holds gets to take its close frame before its socket is destroyed. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Closes every WebSocket opened while `max` are already open, or while `maxPerAddress` are open from its client's
 * address, saying why. The second bound keeps one client (which may hold a socket a few seconds before it has to
 * authenticate) from taking every slot. Must be attached before graphql-ws's own listener, so a refused connection
 * is closed before it is served.
 */
export function limitConnections(wss: WebSocketServer, max: number, maxPerAddress: number): void {
  const open = new Map<string, number>();
  wss.on("connection", (socket, req) => {
    if (wss.clients.size > max) {
      socket.close(CLOSE_TRY_AGAIN_LATER, `too many WebSocket connections: the limit is ${max} (limits.max_connections)`);
      return;
    }
    const address = req.socket.remoteAddress ?? "";
    const count = (open.get(address) ?? 0) + 1;
    if (count > maxPerAddress) {
      // The address stays out of the reason: a close reason holds 123 bytes, and ws throws past them.
      socket.close(
        CLOSE_TRY_AGAIN_LATER,
        `too many WebSocket connections from this address: the limit is ${maxPerAddress} (limits.max_connections_per_address)`,
      );
      return;
    }
    open.set(address, count);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/**
 * The error for a subscribe message past the per-connection limit, or null. `open` are graphql-ws's subscriptions
 * of the connection, the new one included.
 */
export function subscriptionLimitError(open: Readonly<Record<string, unknown>>, max: number): GraphQLError | null {
  const count = Object.keys(open).length;
  if (count <= max) return null;
  return limitError(
    "LIMIT_EXCEEDED",
    "max_subscriptions_per_connection",
    `too many subscriptions on this connection: ${max} are open, the limit (limits.max_subscriptions_per_connection)`,
  );
}

/**
 * The WebSocket class the server makes its connections of: a message whose JSON nests a value more than `max` below
 * its `payload.variables` (or any member of its payload) closes the connection (4400, graphql-ws's "bad request",
 * naming limits.max_variable_depth) before graphql-ws parses it: a message has no subscription id until it is parsed,
 * and parsing 1 MB of nesting takes V8 a quarter of a second.
 */
export function depthBoundWebSocket(max: number): typeof WebSocket {
  return class DepthBoundWebSocket extends WebSocket {
    override emit(event: string | symbol, ...args: unknown[]): boolean {
      const data = args[0];
      // The message, its payload and the payload's member: two levels of the protocol's own.
      if (event === "message" && (typeof data === "string" || data instanceof Uint8Array) && jsonNestedDeeperThan(data, max + 2)) {
        this.close(CLOSE_BAD_REQUEST, `a value in the message is nested more than ${max} deep (limits.max_variable_depth)`);
        return false;
      }
      return super.emit(event, ...args);
    }
  };
}

/** The ping payload that asks a client to prove it has read everything sent before it (keep-alive pings carry none). */
const READ_PROBE = Buffer.from("kintsugi: read so far");

/**
 * The bytes a WebSocket's client has not yet shown it read, whatever the kernel's buffers took in: everything written
 * to the connection since the last ping of ours it answered. A client answers a ping only once it has read what came
 * before it (browsers and `ws` answer pings by themselves), so a client that stops reading stops answering, and what
 * the socket absorbs (megabytes on loopback, sent and never read) counts, where `bufferedAmount` sees only what is left
 * in userland. One probe is out at a time; it is sent when there is something new to acknowledge.
 */
export class UnreadBytes {
  private acknowledged: number;
  private asked: number | null = null;

  constructor(
    private readonly socket: Pick<WebSocket, "ping" | "readyState"> & { on(event: "pong", listener: (data: Buffer) => void): unknown },
    private readonly connection: { readonly bytesWritten: number },
  ) {
    this.acknowledged = connection.bytesWritten;
    socket.on("pong", (data) => {
      if (this.asked === null || !data.equals(READ_PROBE)) return;
      this.acknowledged = this.asked;
      this.asked = null;
    });
  }

  /** Bytes written up to the last probe the client answered: it has read them. */
  get acknowledgedBytes(): number {
    return this.acknowledged;
  }

  /** Bytes written since the client last proved it had read them. */
  get count(): number {
    return Math.max(0, this.connection.bytesWritten - this.acknowledged);
  }

  /** Asks the client to prove it read what was written so far, unless a probe is out or there is nothing new. */
  probe(): void {
    const written = this.connection.bytesWritten;
    if (this.asked !== null || written <= this.acknowledged || this.socket.readyState !== 1) return;
    this.asked = written;
    this.socket.ping(READ_PROBE);
  }
}

/**
 * Meters every connection of `wss` (see UnreadBytes), whose sockets are of queuedSendWebSocket (it counts what they
 * are sent); the meter of a socket, or undefined for one it never saw.
 */
export function meterUnreadBytes(wss: WebSocketServer): (socket: object) => UnreadBytes | undefined {
  const meters = new WeakMap<object, UnreadBytes>();
  wss.on("connection", (socket) =>
    meters.set(
      socket,
      new UnreadBytes(socket, {
        get bytesWritten() {
          return queuedBytes(socket);
        },
      }),
    ),
  );
  return (socket) => meters.get(socket);
}

/** The parts of a `ws` socket the slow-reader bound uses. */
export type BufferedSocket = Pick<WebSocket, "bufferedAmount" | "readyState" | "close" | "terminate">;

/**
 * Called before each event is sent: a socket whose client has not read more than `max` bytes (`unread`, see
 * UnreadBytes, or what is still buffered in userland) is closed, and destroyed if it does not take its close frame
 * either, so a client that stops reading cannot make kintsugi (or the kernel) hold its events. Returns whether the
 * socket was closed.
 */
export function closeSlowReader(socket: BufferedSocket, unread: number, max: number): boolean {
  if (Math.max(unread, socket.bufferedAmount) <= max || socket.readyState !== 1) return false;
  closeWithGrace(socket, CLOSE_POLICY_VIOLATION, `stopped reading: more than ${max} bytes sent and not read (limits.max_buffered_bytes)`);
  return true;
}

/**
 * Closes `socket` saying why, and destroys it if its client has not taken the close frame within a grace: the frame
 * is queued behind what the client did not read, and a client that reads nothing never gets to it.
 */
export function closeWithGrace(socket: Pick<WebSocket, "close" | "terminate">, code: number, reason: string): void {
  socket.close(code, reason);
  setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
}
