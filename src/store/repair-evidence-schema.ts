import { z } from "zod";
import { canonicalEvidence, MAX_BOOT_ID_CHARS, PROOF_SIGNALS, type RepairEvidence } from "../domain/proof/repair-evidence.js";

const time = z.number().finite();
// A boot ID is a UUID on Linux; the domain keeps no longer one (see usableBootId), so a longer one was not written by kintsugi.
const bootId = z.string().max(MAX_BOOT_ID_CHARS).nullable();

/** An entry's proof of repair as stored, checked before it is trusted (other programs can write a store). */
export const repairEvidenceSchema = z.strictObject({
  step: z.number().int().min(0),
  bootIdBefore: bootId,
  bootIdAfter: bootId,
  since: z.strictObject(
    Object.fromEntries(["health_check", ...PROOF_SIGNALS].map((s) => [s, time.optional()])) as Record<
      "health_check" | (typeof PROOF_SIGNALS)[number],
      z.ZodOptional<typeof time>
    >,
  ),
  dwellStartedAt: time.nullable(),
  dwellStarts: z.number().int().min(0),
  provenAt: time.nullable(),
});

/** The evidence kept as JSON text (the old tables' column), checked; throws naming `where` and the fault. */
export function parseStoredEvidence(text: string, where: string): RepairEvidence {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${where}: its proof of repair evidence is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = repairEvidenceSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new Error(`${where}: its proof of repair evidence is invalid${at}: ${issue?.message ?? "invalid"}`);
  }
  // canonicalEvidence keeps only the signals `since` has a time for.
  return canonicalEvidence(parsed.data);
}
