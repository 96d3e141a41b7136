import { z } from "zod";
import { MAX_PUBLISHED_WAITS, MAX_WAIT_MESSAGE_CHARS, type PublishedWait } from "../domain/queue/published-waits.js";
import { WAIT_KINDS } from "../domain/queue/repair-wait.js";

const index = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const text = z.string().max(MAX_WAIT_MESSAGE_CHARS);

/**
 * The stored value of the setting `repair-waits` (both backends): what another replica wrote is served to clients as
 * it is, so a value of the wrong shape or size is refused whole (the replica then serves no waits), never guessed at.
 */
export const publishedWaitsSchema = z
  .array(
    z
      .object({
        index,
        kind: z.enum(WAIT_KINDS),
        message: text,
        until: z.number().int().min(0).max(8.64e15).nullable(),
        domain: text.nullable(),
        entryIndex: index.optional(),
      })
      .strict(),
  )
  .max(MAX_PUBLISHED_WAITS);

/** `value` as published waits, or [] when it is not a valid stored value. */
export function readPublishedWaits(value: unknown): readonly PublishedWait[] {
  const parsed = publishedWaitsSchema.safeParse(value);
  return parsed.success ? parsed.data : [];
}
