import type { WebSocket } from "ws";
import { takeSharedPayload } from "../shared-payloads.js";

type SendCallback = (err?: Error) => void;

/** The parts of ws's connection a turn's frames are written to directly. */
interface Connection {
  write(chunk: Buffer): boolean;
}

/**
 * The bytes of the messages sent on a connection of queuedSendWebSocket so far (frame headers, pings and close
 * frames left out; 0 for another socket). Counted as they are queued: node's `bytesWritten` walks every
 * chunk still queued in userland on each call, and the slow-reader bounds ask once per event and subscription.
 */
export function queuedBytes(ws: object): number {
  return (ws as { queuedBytes?: number }).queuedBytes ?? 0;
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
 * The `next` messages a connection is sent in one turn of the event loop (sendSplit: an event fans out to every
 * subscription of a connection within a turn) are gathered and written to its socket as one buffer once the turn
 * ends: a write per message cost each of them a stream entry and a piece of a system call, most of an event's cost
 * with 10,000 subscribers, and the buffer holds exactly the bytes its frames are, so what a connection holds queued
 * (`bufferedAmount`, which limits.max_total_buffered_bytes adds up) is what it keeps in memory. Anything else written
 * to the connection (a message graphql-ws sends itself, a ping, a pong, the close frame) first writes what was
 * gathered, so the bytes go out in the order they were sent. `afterTurn` runs once a turn in which something was
 * sent, after the turn's writes (the server-wide bound on what is queued looks then).
 */
export function queuedSendWebSocket(Base: typeof WebSocket, afterTurn: () => void = () => undefined): typeof WebSocket {
  const gathering = new Set<QueuedSendWebSocket>();
  let scheduled = false;
  const endOfTurn = () => {
    scheduled = false;
    for (const ws of gathering) ws.writeGathered();
    gathering.clear();
    afterTurn();
  };
  const sentThisTurn = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(endOfTurn);
  };
  class QueuedSendWebSocket extends Base {
    /** The bytes of the messages sent so far (see queuedBytes). */
    queuedBytes = 0;
    /** The messages gathered this turn, head and tail after each other, and their frames' bytes. */
    private gathered: Array<string | Buffer> = [];
    private gatheredBytes = 0;

    override send(data: unknown, optionsOrCallback?: unknown, callback?: unknown): void {
      const done = (typeof optionsOrCallback === "function" ? optionsOrCallback : callback) as SendCallback | undefined;
      const options = typeof optionsOrCallback === "function" ? {} : ((optionsOrCallback ?? {}) as object);
      const split = typeof data === "string" ? takeSharedPayload(data) : null;
      if (this.readyState !== this.OPEN) {
        // ws reports the failure (or drops the message of a closing socket) itself.
        super.send(split ? messageText(split.head, split.tail) : (data as string), options, done);
        return;
      }
      if (split) this.sendSplit(split.head, split.tail);
      else {
        this.writeGathered();
        sentThisTurn();
        this.queuedBytes += typeof data === "string" ? Buffer.byteLength(data) : (data as ArrayBufferView).byteLength;
        // A failed write ends the connection (ws closes it); nothing is left to tell the sender.
        super.send(data as string, options, () => undefined);
      }
      // At once: graphql-ws only resolves a promise with it (a tick for each of 10,000 subscribers is garbage).
      done?.();
    }

    /** Sends `head` then `tail` (a shared buffer) as one text message, written with the turn's others. */
    sendSplit(head: string | Buffer, tail: Buffer): void {
      if (this.readyState !== this.OPEN) {
        super.send(messageText(head, tail), () => undefined);
        return;
      }
      sentThisTurn();
      const bytes = (typeof head === "string" ? Buffer.byteLength(head) : head.length) + tail.length;
      this.queuedBytes += bytes;
      if ((this as unknown as { _sender?: { _queue: unknown[] } })._sender?._queue.length !== 0) {
        // ws holds messages of its own back (only with an extension, and none is in use): after them, as its text.
        this.writeGathered();
        super.send(messageText(head, tail), () => undefined);
        return;
      }
      if (this.gathered.length === 0) gathering.add(this);
      this.gathered.push(head, tail);
      this.gatheredBytes += frameHeaderBytes(bytes) + bytes;
    }

    /** Writes the messages gathered so far to the socket, as one buffer of their frames. */
    writeGathered(): void {
      if (this.gathered.length === 0) return;
      const parts = this.gathered;
      const total = this.gatheredBytes;
      this.gathered = [];
      this.gatheredBytes = 0;
      gathering.delete(this);
      // ws keeps its connection's socket here, and offers no other way to reach it; a closed one takes nothing.
      const socket = (this as unknown as { _socket?: Connection })._socket;
      if (!socket || this.readyState !== this.OPEN) return;
      socket.write(encodeTextFrames(parts, total));
    }

    override ping(data?: unknown, mask?: boolean, cb?: (err: Error) => void): void {
      this.writeGathered();
      super.ping(data, mask, cb);
    }

    override pong(data?: unknown, mask?: boolean, cb?: (err: Error) => void): void {
      this.writeGathered();
      super.pong(data, mask, cb);
    }

    override close(code?: number, data?: string | Buffer): void {
      this.writeGathered();
      super.close(code, data);
    }
  }
  return QueuedSendWebSocket;
}

/**
 * Sends `head` then `tail` on `ws` as one text message, written as queuedSendWebSocket writes the messages graphql-ws
 * sends (counted, gathered for the turn, the tail shared until then); on another socket as its text.
 */
export function sendSplitMessage(ws: WebSocket, head: string | Buffer, tail: Buffer): void {
  const own = ws as unknown as { sendSplit?: (head: string | Buffer, tail: Buffer) => void };
  if (typeof own.sendSplit === "function") own.sendSplit(head, tail);
  else ws.send(messageText(head, tail));
}

/** The text of a message of `head` and `tail`. */
function messageText(head: string | Buffer, tail: Buffer): string {
  return `${head.toString()}${tail.toString()}`;
}

/** The bytes of the header of an unmasked frame of `payloadBytes` (RFC 6455 section 5.2). */
function frameHeaderBytes(payloadBytes: number): number {
  return payloadBytes < 126 ? 2 : payloadBytes < 0x10000 ? 4 : 10;
}

/**
 * The messages of `parts` (a head, then a tail, for each) as unmasked, final text frames (RFC 6455 section 5.2; no
 * extension is in use), one after the other in one buffer of `total` bytes.
 */
export function encodeTextFrames(parts: ReadonlyArray<string | Buffer>, total: number): Buffer {
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < parts.length; i += 2) {
    const head = parts[i] as string | Buffer;
    const tail = parts[i + 1] as Buffer;
    const headBytes = typeof head === "string" ? Buffer.byteLength(head) : head.length;
    const bytes = headBytes + tail.length;
    out[at] = 0x81;
    if (bytes < 126) {
      out[at + 1] = bytes;
      at += 2;
    } else if (bytes < 0x10000) {
      out[at + 1] = 126;
      out.writeUInt16BE(bytes, at + 2);
      at += 4;
    } else {
      out[at + 1] = 127;
      out.writeUInt32BE(Math.floor(bytes / 0x100000000), at + 2);
      out.writeUInt32BE(bytes >>> 0, at + 6);
      at += 10;
    }
    at += typeof head === "string" ? out.write(head, at) : head.copy(out, at);
    at += tail.copy(out, at);
  }
  return out;
}
