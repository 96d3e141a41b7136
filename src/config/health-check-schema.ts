import { z } from "../support/zod.js";
import { parseMaxUnhealthy, parseUnhealthyRange, type HealthCheckConfig } from "../domain/health/health-check-config.js";
import { labelSelector } from "./label-selector-schema.js";

const condition = z.strictObject({
  type: z.string().min(1),
  status: z.enum(["True", "False", "Unknown"]),
  timeout_seconds: z.int().min(0),
});

const check = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: "must be a lower-case name of letters, digits and '-'" }),
    selector: labelSelector,
    unhealthy_conditions: z.array(condition).min(1, { message: "must be a non-empty list" }),
    max_unhealthy: z.union([z.int(), z.string()]).default("100%"),
    unhealthy_range: z.string().optional(),
    operation: z.string().min(1),
    machine_type_label: z.string().min(1).optional(),
    paused: z.boolean().default(false),
  })
  .superRefine((c, ctx) => {
    const named = (message: string) => `check "${c.name}": ${message}`;
    if (Object.keys(c.selector.matchLabels ?? {}).length === 0 && (c.selector.matchExpressions ?? []).length === 0) {
      ctx.addIssue({ code: "custom", path: ["selector"], message: named("must not be empty (it would select every node)") });
    }
    if (parseMaxUnhealthy(c.max_unhealthy) === null) {
      ctx.addIssue({
        code: "custom",
        path: ["max_unhealthy"],
        message: named(`must be an integer >= 0 or a percentage from 0% to 100%, got ${JSON.stringify(c.max_unhealthy)}`),
      });
    }
    if (c.unhealthy_range !== undefined && parseUnhealthyRange(c.unhealthy_range) === null) {
      ctx.addIssue({
        code: "custom",
        path: ["unhealthy_range"],
        message: named(`must be "[min-max]" with min <= max, got ${JSON.stringify(c.unhealthy_range)}`),
      });
    }
  });

/** The `health_checks` list: every name unique. */
export const healthChecks = z.array(check).superRefine((checks, ctx) => {
  const seen = new Set<string>();
  checks.forEach((c, i) => {
    if (seen.has(c.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `check "${c.name}": the name is used twice` });
    seen.add(c.name);
  });
});

/**
 * Refuses a check whose `operation` no repair procedure has: every entry it enqueued would fail at once. Only
 * "some procedure has it" can be known here; which procedure a machine gets (the first whose `machine_types`
 * contains its type) is known when it is remediated, and a type without the operation is then held, not enqueued.
 */
export function refuseUnknownOperations(
  checks: ReadonlyArray<{ readonly name: string; readonly operation: string }>,
  procedures: ReadonlyArray<{ readonly repair_operations: ReadonlyArray<{ readonly operation: string }> }>,
  ctx: z.RefinementCtx,
): void {
  const known = new Set(procedures.flatMap((p) => p.repair_operations.map((o) => o.operation)));
  checks.forEach((c, i) => {
    if (known.has(c.operation)) return;
    const listed = known.size === 0 ? "repair.repair_procedures has none" : `known: ${[...known].join(", ")}`;
    ctx.addIssue({
      code: "custom",
      path: ["health_checks", i, "operation"],
      message: `check "${c.name}": operation ${JSON.stringify(c.operation)} is not a repair operation of any repair procedure (${listed})`,
    });
  });
}

/** The validated section, in the domain's shape. */
export function toHealthCheckConfigs(section: z.output<typeof healthChecks> | undefined): HealthCheckConfig[] {
  return (section ?? []).map((c) => ({
    name: c.name,
    selector: c.selector,
    unhealthyConditions: c.unhealthy_conditions.map((u) => ({ type: u.type, status: u.status, timeoutSeconds: u.timeout_seconds })),
    maxUnhealthy: parseMaxUnhealthy(c.max_unhealthy) ?? { kind: "percent", value: 100 },
    unhealthyRange: c.unhealthy_range === undefined ? null : parseUnhealthyRange(c.unhealthy_range),
    operation: c.operation,
    machineType: c.machine_type_label === undefined ? { from: "sabakan" } : { from: "label", label: c.machine_type_label },
    paused: c.paused,
  }));
}
