import { z } from "zod";
import { MAX_PUBLISHED_WAITS, MAX_WAIT_MESSAGE_CHARS } from "../domain/queue/published-waits.js";
import { WAIT_KINDS } from "../domain/queue/repair-wait.js";

const index = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const text = z.string().max(MAX_WAIT_MESSAGE_CHARS);

/** The setting `repair-waits`: served to clients as another replica wrote it, so a value of the wrong shape is refused whole. */
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
