import { deflateRawSync, inflateRawSync } from "node:zlib";
import { z } from "../support/zod.js";
import { MACHINE_STATES } from "../domain/sabakan/machine-params.js";
import type { PollRecord } from "../domain/replay/poll-record.js";
import type { RemediationRecord } from "../domain/replay/remediation-record.js";

/** The most machines one stored record may hold: ten times the largest data center kintsugi is measured at. */
const MAX_RECORDED_MACHINES = 100_000;
/** The most bytes one record may take once inflated: far above a 100,000-machine answer's few megabytes. */
const MAX_RECORD_JSON_BYTES = 32 * 1024 * 1024;

const count = z.int().min(0).max(Number.MAX_SAFE_INTEGER);
const text = z.string().max(1024);
const column = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_RECORDED_MACHINES);

/**
 * A stored poll record, checked whole before the replay reads it: one of the wrong shape is refused, never guessed at.
 * A field this kintsugi does not know is dropped, as in every stored value: a newer replica's records stay readable
 * here during a rolling upgrade, without what it added.
 */
export const pollRecordSchema = z.object({
  time: count,
  machines: z
    .object({
      serial: column(text),
      ipv4: column(text.nullable()),
      rack: column(count),
      types: column(text),
      type: column(count),
      state: column(
        z
          .int()
          .min(0)
          .max(MACHINE_STATES.length - 1),
      ),
      seconds: column(count),
      standing: column(z.int().min(0).max(2)),
    })
    .refine((m) => [m.ipv4, m.rack, m.type, m.state, m.seconds, m.standing].every((c) => c.length === m.serial.length), "columns of different lengths")
    .refine((m) => m.type.every((t) => t < m.types.length), "a type index past the type dictionary"),
  queue: column(text),
  held: column(text),
  constraints: z.object({ maximumRepairQueueEntries: count, waitSecondsToRepairRebooting: count, maximumUnhealthyMachinesPerRack: count }),
  enqueued: column(text),
  shortCircuited: z.boolean(),
});

/** A stored remediation record, checked whole as poll records are. */
export const remediationRecordSchema = z.object({
  time: count,
  check: text,
  gate: z.object({ open: z.boolean(), reason: text.nullable() }),
  targets: count,
  pending: count,
  unhealthy: z
    .object({
      node: column(text),
      address: column(text.nullable()),
      addressProblem: column(text.nullable()),
      machineType: column(text.nullable()),
      rack: column(count.nullable()).optional(),
    })
    .refine((u) => [u.address, u.addressProblem, u.machineType, u.rack ?? u.node].every((c) => c.length === u.node.length), "columns of different lengths"),
  queue: column(text),
  held: column(text),
  maximumRepairQueueEntries: count,
  rackLimit: count.optional(),
  enqueued: column(text),
  shortCircuited: z.boolean(),
});

/** A record as stored: its JSON, deflated (columns of serials and addresses compress several times over). */
export function encodePollRecord(record: PollRecord | RemediationRecord): Buffer {
  return deflateRawSync(Buffer.from(JSON.stringify(record)));
}

type Decoded<R> = { readonly ok: true; readonly record: R } | { readonly ok: false; readonly message: string };

/** A stored record, or why it cannot be read (corrupt, too large, or of the wrong shape). */
function decodeWith<R>(schema: z.ZodType<R>, what: string, body: Uint8Array): Decoded<R> {
  let value: unknown;
  try {
    value = JSON.parse(inflateRawSync(body, { maxOutputLength: MAX_RECORD_JSON_BYTES }).toString("utf8"));
  } catch (err) {
    return { ok: false, message: `not a deflated JSON ${what}: ${(err as Error).message}` };
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, record: parsed.data } : { ok: false, message: `not a ${what}: ${parsed.error.issues[0]?.message ?? "wrong shape"}` };
}

export const decodePollRecord = (body: Uint8Array): Decoded<PollRecord> => decodeWith(pollRecordSchema, "poll record", body);
export const decodeRemediationRecord = (body: Uint8Array): Decoded<RemediationRecord> => decodeWith(remediationRecordSchema, "remediation record", body);

/** A replay record of either kind: a poll's intake, or a health check's remediation. */
export type ReplayRecord = { readonly area: "intake"; readonly record: PollRecord } | { readonly area: "health-check"; readonly record: RemediationRecord };

/** The replay record of kind `area` stored in `body`, or why it cannot be read (a kind that is neither included). */
export function decodeReplay(
  area: string,
  body: Uint8Array,
): { readonly ok: true; readonly replay: ReplayRecord } | { readonly ok: false; readonly message: string } {
  if (area === "intake") {
    const decoded = decodePollRecord(body);
    return decoded.ok ? { ok: true, replay: { area, record: decoded.record } } : decoded;
  }
  if (area !== "health-check") return { ok: false, message: `kind ${JSON.stringify(area)}` };
  const decoded = decodeRemediationRecord(body);
  return decoded.ok ? { ok: true, replay: { area, record: decoded.record } } : decoded;
}
