import type { CaptureRequest } from "./command-capture.js";

/**
 * The messages between a replica and its command spawner (see command-spawner.ts), each a frame: a 4-byte big-endian
 * length, then that many bytes of JSON. The replica asks the spawner to `run`; the spawner answers for each `id`, in
 * this order, `started` and `exited` then `ended`, or `spawn-error` alone.
 */
export type SpawnerRequest = { readonly t: "run"; readonly id: number } & CaptureRequest;

export type SpawnerReport =
  | { readonly t: "started"; readonly id: number; readonly pid: number }
  | { readonly t: "exited"; readonly id: number; readonly code: number | null; readonly signal: string | null }
  | { readonly t: "ended"; readonly id: number; readonly stdout: string; readonly stderr: string }
  | { readonly t: "spawn-error"; readonly id: number; readonly message: string };

const HEADER_BYTES = 4;

/** One message as a frame. */
export function encodeFrame(message: SpawnerRequest | SpawnerReport): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  const frame = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, HEADER_BYTES);
  return frame;
}

/** A stream that is not a sequence of frames within the bound: the other side is broken. */
export class FrameError extends Error {}

/**
 * Cuts a byte stream into the JSON values of its frames, whatever the chunks' boundaries. A frame longer than
 * `maxFrameBytes` is refused before its body is buffered, so memory stays bounded whatever the other side sends.
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  /** `maxFrameBytes` may be raised later (the replica's bound follows the largest tail asked for). */
  constructor(public maxFrameBytes: number) {}

  /** The values of the frames completed by `chunk`, in order. @throws FrameError on an oversized frame or bad JSON. */
  push(chunk: Buffer): unknown[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const values: unknown[] = [];
    let offset = 0;
    while (this.buffered.length - offset >= HEADER_BYTES) {
      const length = this.buffered.readUInt32BE(offset);
      if (length > this.maxFrameBytes) throw new FrameError(`a frame of ${length} bytes (at most ${this.maxFrameBytes})`);
      if (this.buffered.length - offset - HEADER_BYTES < length) break;
      const body = this.buffered.toString("utf8", offset + HEADER_BYTES, offset + HEADER_BYTES + length);
      offset += HEADER_BYTES + length;
      try {
        values.push(JSON.parse(body));
      } catch {
        throw new FrameError(`a frame that is not JSON: ${JSON.stringify(body.slice(0, 80))}`);
      }
    }
    this.buffered = this.buffered.subarray(offset);
    return values;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isStringOrNull = (value: unknown): boolean => value === null || typeof value === "string";

/** `value` as a report, or null when it is none (the spawner is then broken). */
export function asReport(value: unknown): SpawnerReport | null {
  if (!isObject(value) || !isId(value.id)) return null;
  switch (value.t) {
    case "started":
      // The replica signals -pid: 0 would be its own group, 1 every process it may signal.
      return Number.isSafeInteger(value.pid) && (value.pid as number) > 1 ? (value as SpawnerReport) : null;
    case "exited":
      return (value.code === null || Number.isSafeInteger(value.code)) && isStringOrNull(value.signal) ? (value as SpawnerReport) : null;
    case "ended":
      return typeof value.stdout === "string" && typeof value.stderr === "string" ? (value as SpawnerReport) : null;
    case "spawn-error":
      return typeof value.message === "string" ? (value as SpawnerReport) : null;
    default:
      return null;
  }
}

/** `value` as a request, or null when it is none. */
export function asRequest(value: unknown): SpawnerRequest | null {
  if (!isObject(value) || value.t !== "run" || !isId(value.id)) return null;
  const { command, args, env, lifeline, maxOutputBytes } = value;
  const valid =
    typeof command === "string" &&
    Array.isArray(args) &&
    args.every((a) => typeof a === "string") &&
    isObject(env) &&
    Object.values(env).every((v) => typeof v === "string") &&
    typeof lifeline === "boolean" &&
    Number.isSafeInteger(maxOutputBytes) &&
    (maxOutputBytes as number) >= 0;
  return valid ? (value as unknown as SpawnerRequest) : null;
}
