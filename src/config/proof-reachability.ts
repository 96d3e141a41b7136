import type { z } from "../support/zod.js";

/** What the check reads of an operation as written in the file. */
interface ProofOperation {
  readonly operation: string;
  readonly success_requires?: readonly string[] | undefined;
}

/** What the check reads of the whole file: the operations, and whether sabakan and Kubernetes are configured. */
interface ProofFile {
  readonly sabakan?: unknown;
  readonly kubernetes?: unknown;
  readonly repair?: { readonly repair_procedures: ReadonlyArray<{ readonly repair_operations: readonly ProofOperation[] }> } | undefined;
}

// The signals another section of the file must make observable, and how to say what is missing.
const SOURCES: Readonly<Record<string, { readonly section: "sabakan" | "kubernetes"; readonly fix: string }>> = {
  sabakan_healthy: { section: "sabakan", fix: "add a sabakan section (sabakan.url), or remove the signal" },
  node_ready: { section: "kubernetes", fix: "add a kubernetes section (kubernetes: {} uses the Pod's in-cluster credentials), or remove the signal" },
  boot_id_changed: { section: "kubernetes", fix: "add a kubernetes section (kubernetes: {} uses the Pod's in-cluster credentials), or remove the signal" },
};

/**
 * Refuses proof of repair that no entry could ever gather (kintsugi): a `success_requires` signal whose source the
 * file does not configure: `sabakan_healthy` without a `sabakan` section,
 * `node_ready` or `boot_id_changed` without a `kubernetes` section. Kubernetes must be named in the file: an absent
 * section falls back to in-cluster credentials only when the process happens to run in a Pod, which the file cannot
 * tell, so `check-config` and `serve` would disagree wherever they ran apart; `kubernetes: {}` says so explicitly.
 * Each problem names the operation, the key and the value. A `success_dwell_seconds` longer than every
 * `watch_seconds` is not refused: a running dwell holds the watch open until it ends (holdWhileDwelling), so it can
 * prove a repair.
 */
export function refuseUnreachableProof(file: ProofFile, ctx: z.RefinementCtx): void {
  (file.repair?.repair_procedures ?? []).forEach((procedure, p) => {
    procedure.repair_operations.forEach((op, o) => {
      const path = ["repair", "repair_procedures", p, "repair_operations", o];
      const named = `operation ${JSON.stringify(op.operation)}`;
      (op.success_requires ?? []).forEach((signal, i) => {
        const source = SOURCES[signal];
        if (source === undefined || file[source.section] !== undefined) return;
        ctx.addIssue({
          code: "custom",
          path: [...path, "success_requires", i],
          message: `${named}: success_requires ${signal} can never hold without a ${source.section} section: ${source.fix}`,
        });
      });
    });
  });
}
