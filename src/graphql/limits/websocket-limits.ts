import type { GraphQLError } from "graphql";
import type { WebSocket, WebSocketServer } from "ws";
import { limitError } from "../errors.js";

/** Close code for a connection refused because the server is at its connection limit ("try again later"). */
export const CLOSE_TRY_AGAIN_LATER = 1013;
/** Close code for a client that stopped reading (policy violation). */
export const CLOSE_POLICY_VIOLATION = 1008;

/** How long a closed slow reader gets to take its close frame before its socket is destroyed. */
const SLOW_READER_GRACE_MS = 5_000;

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

/** The parts of a `ws` socket the slow-reader bound uses. */
export type BufferedSocket = Pick<WebSocket, "bufferedAmount" | "readyState" | "close" | "terminate">;

/**
 * Called before each event is sent: a socket holding more than `max` bytes its client has not taken is closed
 * (and destroyed if it does not take its close frame either), so a client that stops reading cannot make kintsugi
 * hold its events. Returns whether the socket was closed.
 */
export function closeSlowReader(socket: BufferedSocket, max: number): boolean {
  if (socket.bufferedAmount <= max || socket.readyState !== 1) return false;
  socket.close(CLOSE_POLICY_VIOLATION, `stopped reading: more than ${max} bytes unsent (limits.max_buffered_bytes)`);
  setTimeout(() => socket.terminate(), SLOW_READER_GRACE_MS).unref();
  return true;
}
