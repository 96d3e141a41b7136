import { z } from "../support/zod.js";
import { labelSelectorProblem } from "../domain/shared/label-selector.js";

// Checks that need a well-formed value run only when the value's own subtree parsed cleanly.
export const whenClean = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };

/** A Kubernetes LabelSelector, checked as metav1.LabelSelectorAsSelector checks it. */
export const labelSelector = z
  .strictObject({
    matchLabels: z.record(z.string(), z.string()).optional(),
    matchExpressions: z
      .array(
        z.strictObject({
          key: z.string(),
          operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]),
          values: z.array(z.string()).optional(),
        }),
      )
      .optional(),
  })
  .superRefine((selector, ctx) => {
    const problem = labelSelectorProblem(selector);
    if (problem) ctx.addIssue({ code: "custom", message: problem.message, path: [problem.path] });
  }, whenClean);
