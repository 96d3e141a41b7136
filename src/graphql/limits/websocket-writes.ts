import type { WebSocket } from "ws";
import { takeSharedPayload, type SplitMessage } from "../shared-payloads.js";

type SendCallback = (err?: Error) => void;

/** The parts of a socket corked for a turn of the event loop. */
interface Corkable {
  cork(): void;
  uncork(): void;
}

/** The parts of ws's connection a message is written to directly. */
interface Connection extends Corkable {
  write(chunk: string | Buffer): boolean;
}

// The bytes of the messages queued on each connection so far.
const queued = new WeakMap<object, number>();

/**
 * The bytes of the messages sent on a connection of queuedSendWebSocket so far (frame headers, pings and close
 * frames left out; 0 for another socket). Counted as they are queued: node's `bytesWritten` walks every
 * chunk still queued in userland on each call, and the slow-reader bounds ask once per event and subscription.
 */
export function queuedBytes(ws: object): number {
  return queued.get(ws) ?? 0;
}

/**
 * The WebSocket class `Base` with a `send` that reports a message done once it is queued, not once the kernel took
 * it. graphql-ws waits for that report before it hands a subscription its next event, and the slow-reader bounds
 * (limits.max_buffered_bytes, the subscription lag) are checked as an event is handed on: with the kernel's report,
 * a client that stops reading stalls every subscription of its connection as soon as the socket's buffers are full
 * (about 4 MB on loopback, just under the default bound), so the bounds are never checked again while each
 * subscription queues its events. Reported at once, every event reaches the checks, and what is queued for a
 * connection is bounded by the limit plus one event.
 *
 * The messages a connection is sent in one turn of the event loop go to its socket in one write: an event fans out
 * to every subscription of a connection within a turn, and one system call per message was most of the cost of an
 * event with 10,000 subscribers. `afterTurn` runs once a turn, after the writes of the turn were handed to the
 * sockets (the server-wide bound on what is queued looks then).
 */
export function queuedSendWebSocket(Base: typeof WebSocket, afterTurn: () => void = () => undefined): typeof WebSocket {
  const corked = new Set<Corkable>();
  let flushing = false;
  const flush = () => {
    flushing = false;
    for (const socket of corked) socket.uncork();
    corked.clear();
    afterTurn();
  };
  const corkForThisTurn = (ws: WebSocket) => {
    // ws keeps its connection's socket here, and offers no other way to reach it.
    const socket = (ws as unknown as { _socket?: Corkable })._socket;
    if (!socket || corked.has(socket)) return;
    corked.add(socket);
    socket.cork();
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
  };
  return class QueuedSendWebSocket extends Base {
    override send(data: unknown, optionsOrCallback?: unknown, callback?: unknown): void {
      const done = (typeof optionsOrCallback === "function" ? optionsOrCallback : callback) as SendCallback | undefined;
      const options = typeof optionsOrCallback === "function" ? {} : ((optionsOrCallback ?? {}) as object);
      const split = typeof data === "string" ? takeSharedPayload(data) : null;
      if (this.readyState !== this.OPEN) {
        // ws reports the failure (or drops the message of a closing socket) itself.
        super.send(split ? split.head + split.tail.toString() : (data as string), options, done);
        return;
      }
      if (split) this.sendSplit(split);
      else {
        corkForThisTurn(this);
        queued.set(this, (queued.get(this) ?? 0) + (typeof data === "string" ? Buffer.byteLength(data) : (data as ArrayBufferView).byteLength));
        // A failed write ends the connection (ws closes it); nothing is left to tell the sender.
        super.send(data as string, options, () => undefined);
      }
      // At once: graphql-ws only resolves a promise with it (a tick for each of 10,000 subscribers is garbage).
      done?.();
    }

    /** Sends `message` (its head, then its shared tail) as one text message; see sendSplitMessage. */
    sendSplit(message: SplitMessage): void {
      if (this.readyState !== this.OPEN) {
        super.send(message.head + message.tail.toString(), () => undefined);
        return;
      }
      corkForThisTurn(this);
      const internals = this as unknown as { _socket?: Connection; _sender?: { _queue: unknown[] } };
      if (internals._socket && internals._sender?._queue.length === 0) {
        // The frame written here, its payload the one buffer every subscriber of the event shares: ws would copy it
        // into a string of its own for each. ws writes nothing else without deflate (off) and a queue (empty).
        const bytes = writeSplitFrame(internals._socket, message);
        queued.set(this, (queued.get(this) ?? 0) + bytes);
      } else {
        const text = message.head + message.tail.toString();
        queued.set(this, (queued.get(this) ?? 0) + Buffer.byteLength(text));
        super.send(text, () => undefined);
      }
    }
  };
}

/**
 * Sends `message` on `ws` as one text message, written as queuedSendWebSocket writes the messages graphql-ws sends
 * (counted, corked for the turn, the tail shared); on another socket as its text.
 */
export function sendSplitMessage(ws: WebSocket, message: SplitMessage): void {
  const own = ws as unknown as { sendSplit?: (message: SplitMessage) => void };
  if (typeof own.sendSplit === "function") own.sendSplit(message);
  else ws.send(message.head + message.tail.toString());
}

/**
 * Writes `message` to `socket` as one unmasked, final text frame (RFC 6455 section 5.2; no extension is in use): the
 * frame's header and the message's head in one buffer, then the shared tail. Returns the payload's bytes.
 */
function writeSplitFrame(socket: Connection, message: SplitMessage): number {
  const headBytes = Buffer.byteLength(message.head);
  const bytes = headBytes + message.tail.length;
  const headerBytes = bytes < 126 ? 2 : bytes < 0x10000 ? 4 : 10;
  const first = Buffer.allocUnsafe(headerBytes + headBytes);
  first[0] = 0x81;
  if (bytes < 126) first[1] = bytes;
  else if (bytes < 0x10000) {
    first[1] = 126;
    first.writeUInt16BE(bytes, 2);
  } else {
    first[1] = 127;
    first.writeUInt32BE(Math.floor(bytes / 0x100000000), 2);
    first.writeUInt32BE(bytes >>> 0, 6);
  }
  first.write(message.head, headerBytes);
  socket.write(first);
  socket.write(message.tail);
  return bytes;
}
