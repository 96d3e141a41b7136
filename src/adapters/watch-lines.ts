import { quoteUntrusted } from "../domain/shared/untrusted-text.js";

/** One event of a watch as kintsugi uses it: its type, and for an ERROR event the Status message (escaped). */
export interface WatchEvent {
  readonly type: string;
  readonly message: string;
}

/** What one chunk of a watch answer held: its complete events, and the failure that ends the watch, if any. */
export interface WatchRead {
  readonly events: readonly WatchEvent[];
  readonly failure: string | null;
}

const NEWLINE = 0x0a;

/** The event a line holds, or why it is none (quoted, cut short: the line is the server's). */
function eventOf(line: string): WatchEvent | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return `a line that is not JSON: ${quoteUntrusted(line)}`;
  }
  const event = (typeof parsed === "object" && parsed !== null ? parsed : {}) as { type?: unknown; object?: { message?: unknown } };
  if (typeof event.type !== "string") return `a line that is not a watch event: ${quoteUntrusted(line)}`;
  const message = typeof event.object?.message === "string" ? event.object.message : "";
  return { type: event.type, message: quoteUntrusted(message) };
}

/**
 * Splits a watch answer (one JSON event per line) into events, holding at most `maxLineBytes` of an unfinished
 * line: a longer line is a failure, and its bytes are dropped, however long the server goes on sending it. After a
 * failure nothing more is read.
 */
export class WatchLines {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private failed = false;

  constructor(private readonly maxLineBytes: number) {}

  push(chunk: Buffer): WatchRead {
    if (this.failed) return { events: [], failure: null };
    const events: WatchEvent[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const failure = this.take(chunk.subarray(start, end)) ?? this.line(events);
      start = end + 1;
      if (failure !== null) return this.fail(events, failure);
    }
    const failure = this.take(chunk.subarray(start));
    return failure === null ? { events, failure: null } : this.fail(events, failure);
  }

  /** Adds part of a line; a failure when the line grows past the bound. */
  private take(part: Buffer): string | null {
    this.pendingBytes += part.byteLength;
    if (this.pendingBytes > this.maxLineBytes) return `a line longer than ${this.maxLineBytes} bytes (kubernetes.max_response_bytes)`;
    if (part.byteLength > 0) this.pending.push(part);
    return null;
  }

  /** Ends the pending line: its event joins `events`, or the reason it is none comes back. */
  private line(events: WatchEvent[]): string | null {
    const text = Buffer.concat(this.pending).toString("utf8").trim();
    this.pending = [];
    this.pendingBytes = 0;
    if (text === "") return null;
    const event = eventOf(text);
    if (typeof event === "string") return event;
    events.push(event);
    return null;
  }

  private fail(events: WatchEvent[], failure: string): WatchRead {
    this.failed = true;
    this.pending = [];
    this.pendingBytes = 0;
    return { events, failure };
  }
}
