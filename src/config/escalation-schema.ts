import { z } from "../support/zod.js";

/** `repair.escalation`: repeat offenders, `max_repairs` entries within `window_seconds`; `operation` instead of a hold. */
export const repairEscalation = z.strictObject({
  max_repairs: z.int().gt(0),
  window_seconds: z.int().gt(0),
  operation: z.string().min(1).optional(),
});

/**
 * Refuses an escalation `operation` no repair procedure has: every entry it enqueued would fail at once. As for
 * health checks, only "some procedure has it" can be known here; a machine whose type's procedure lacks it is
 * skipped (or held by health checks) with the reason when it is escalated.
 */
export function refuseUnknownEscalation(
  section: {
    readonly escalation?: { readonly operation?: string | undefined } | undefined;
    readonly repair_procedures: ReadonlyArray<{ readonly repair_operations: ReadonlyArray<{ readonly operation: string }> }>;
  },
  ctx: z.RefinementCtx,
): void {
  const operation = section.escalation?.operation;
  if (operation === undefined) return;
  const known = new Set(section.repair_procedures.flatMap((p) => p.repair_operations.map((o) => o.operation)));
  if (known.has(operation)) return;
  const listed = known.size === 0 ? "repair.repair_procedures has none" : `known: ${[...known].join(", ")}`;
  ctx.addIssue({
    code: "custom",
    path: ["escalation", "operation"],
    message: `operation ${JSON.stringify(operation)} is not a repair operation of any repair procedure (${listed})`,
  });
}
