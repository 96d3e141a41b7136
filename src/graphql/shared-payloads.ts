// A subscription event's payload serialised once for every subscriber that shares its execution (see sharedSubscribe),
// not once per subscription. graphql-ws serialises each `next` message whole, the subscription's id included; its
// `jsonMessageReplacer` hook (sharedPayloadReplacer) puts a marker in place of a `next` message's payload, and the
// socket's send (queuedSendWebSocket) swaps the marker for the payload's JSON, kept per payload object. graphql-ws
// serialises a message and hands it to the socket in one synchronous step, so the payload the marker stands for is
// the one the replacer saw last.

const MARKER = "\u0000kintsugi: shared payload";
/** How a `next` message whose payload the replacer took ends, as JSON. */
const MARKED_END = `"payload":${JSON.stringify(MARKER)}}`;

// The JSON of each payload object (with the message's closing brace), kept as long as the payload is.
const encoded = new WeakMap<object, Buffer>();
let message: unknown = null;
let taken: object | null = null;

/**
 * graphql-ws's `jsonMessageReplacer`: the payload of a `next` message is replaced by a marker (and kept for
 * takeSharedPayload); everything else is serialised as it is.
 */
export function sharedPayloadReplacer(this: unknown, key: string, value: unknown): unknown {
  if (key === "") {
    message = value;
    return value;
  }
  if (key === "payload" && this === message && (this as { type?: unknown }).type === "next" && value !== null && typeof value === "object") {
    taken = value;
    return MARKER;
  }
  return value;
}

/** A `next` message split in two: its text up to the payload, and the payload's JSON with the closing brace. */
export interface SplitMessage {
  readonly head: string;
  readonly tail: Buffer;
}

/**
 * The message `data` as its own head and the shared payload's JSON, when graphql-ws just serialised it with a payload
 * sharedPayloadReplacer took; null for any other message (sent as it is).
 */
export function takeSharedPayload(data: string): SplitMessage | null {
  const payload = taken;
  taken = null;
  message = null;
  if (payload === null || !data.endsWith(MARKED_END)) return null;
  return { head: `${data.slice(0, data.length - MARKED_END.length)}"payload":`, tail: payloadTail(payload) };
}

/** The JSON of `payload` with the closing brace of the message it ends, made once per payload object. */
export function payloadTail(payload: object): Buffer {
  let tail = encoded.get(payload);
  if (tail === undefined) {
    tail = Buffer.from(`${JSON.stringify(payload)}}`);
    encoded.set(payload, tail);
  }
  return tail;
}

/**
 * The text of subscription `id`'s `next` messages up to their payload: followed by payloadTail(payload), the same
 * text graphql-ws writes (`{"id":…,"type":"next","payload":…}`), for a subscription whose events are written without
 * graphql-ws (see pushedSubscription).
 */
export function nextMessageHead(id: string): string {
  return `{"id":${JSON.stringify(id)},"type":"next","payload":`;
}
