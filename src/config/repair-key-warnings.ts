import { REPAIR_KEYS } from "./config-schema.js";
import type { ConfigProblem } from "./load-config.js";
import { unknownKeyMessage } from "./nearest-key.js";

type Level = Exclude<keyof typeof REPAIR_KEYS, "repair">;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * The keys of the `repair` section's procedures, operations and steps that neither CKE's cluster.yml nor kintsugi
 * knows, each with its path and the known key it is nearest to. CKE ignores such keys (encoding/json and its YAML
 * reader drop them), so kintsugi loads the procedures as CKE does and warns instead of refusing: a key CKE's own test
 * cluster.yml carries by mistake (its `success_command_timeout_seconds` for `success_command_timeout`) would otherwise
 * stop the start. A key directly under `repair` is the schema's to refuse. Only mappings are walked; a value of the
 * wrong type is the schema's to refuse.
 */
export function repairKeyWarnings(data: unknown): ConfigProblem[] {
  if (!isMapping(data) || !isMapping(data["repair"])) return [];
  const warnings: ConfigProblem[] = [];
  const unknown = (value: Record<string, unknown>, level: Level, path: string) => {
    const known: readonly string[] = REPAIR_KEYS[level];
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) warnings.push({ path: `${path}.${key}`, message: unknownKeyMessage(key, known, "unknown key, ignored as CKE ignores it") });
    }
  };
  const repair = data["repair"];
  listOf(repair["repair_procedures"]).forEach((procedure, i) => {
    if (!isMapping(procedure)) return;
    const procedurePath = `repair.repair_procedures[${i}]`;
    unknown(procedure, "procedure", procedurePath);
    listOf(procedure["repair_operations"]).forEach((operation, j) => {
      if (!isMapping(operation)) return;
      const operationPath = `${procedurePath}.repair_operations[${j}]`;
      unknown(operation, "operation", operationPath);
      listOf(operation["repair_steps"]).forEach((step, k) => {
        if (isMapping(step)) unknown(step, "step", `${operationPath}.repair_steps[${k}]`);
      });
    });
  });
  return warnings;
}
