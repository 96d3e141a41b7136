import type { WebSocket } from "ws";
import { CLOSE_TRY_AGAIN_LATER, closeWithGrace } from "./websocket-limits.js";

/** What the server-wide bound reads of a connection: its queued bytes, and whether it is still open. */
export interface QueuedConnection {
  /** Bytes sent on the connection and still in the process's memory (not yet taken by the kernel). */
  readonly bufferedAmount: number;
  readonly readyState: number;
}

/**
 * The connections to close so that the open ones hold at most `max` bytes queued between them: the ones holding the
 * most first, as few as will do. A connection already closing is gone within its grace and is neither counted nor
 * chosen. Returns the chosen connections with the bytes each held, and the total before.
 */
export function overTotalBuffered<C extends QueuedConnection>(connections: Iterable<C>, max: number): { close: Array<[C, number]>; total: number } {
  const open: Array<[C, number]> = [];
  let total = 0;
  for (const connection of connections) {
    if (connection.readyState !== 1) continue;
    const bytes = connection.bufferedAmount;
    if (bytes === 0) continue;
    open.push([connection, bytes]);
    total += bytes;
  }
  if (total <= max) return { close: [], total };
  open.sort((a, b) => b[1] - a[1]);
  const close: Array<[C, number]> = [];
  let left = total;
  for (const held of open) {
    if (left <= max) break;
    close.push(held);
    left -= held[1];
  }
  return { close, total };
}

/** The close reason of a connection closed by the server-wide bound (a close reason holds at most 123 bytes). */
export function totalBufferedReason(max: number): string {
  return `all clients together have more than ${max} bytes queued; this one the most (limits.max_total_buffered_bytes)`;
}

/**
 * Applies limits.max_total_buffered_bytes to `clients` (a WebSocketServer's): closes the connections holding the
 * most queued bytes (1013, naming the limit) until what the rest hold is within `max`, telling `closed` of each.
 * Called once a turn of the event loop in which something was sent (see queuedSendWebSocket): the bytes queued
 * only grow as messages are sent.
 */
export function capTotalBuffered(clients: () => Iterable<WebSocket>, max: number, closed: (queuedBytes: number, totalBytes: number) => void): () => void {
  return () => {
    const { close, total } = overTotalBuffered(clients(), max);
    for (const [socket, bytes] of close) {
      closeWithGrace(socket, CLOSE_TRY_AGAIN_LATER, totalBufferedReason(max));
      closed(bytes, total);
    }
  };
}
