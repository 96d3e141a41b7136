import { REPAIR_KEYS } from "./config-schema.js";
import type { ConfigProblem } from "./load-config.js";

type Level = keyof typeof REPAIR_KEYS;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * The keys of the config file's `repair` section that neither CKE's cluster.yml nor kintsugi knows, each with its
 * path. CKE ignores such keys (encoding/json and its YAML reader drop them), so kintsugi loads the section as CKE
 * does and warns instead of refusing: a key CKE's own test cluster.yml carries by mistake (its
 * `success_command_timeout_seconds` for `success_command_timeout`) would otherwise stop the start. Only mappings are
 * walked; a value of the wrong type is the schema's to refuse.
 */
export function repairKeyWarnings(data: unknown): ConfigProblem[] {
  if (!isMapping(data) || !isMapping(data["repair"])) return [];
  const warnings: ConfigProblem[] = [];
  const unknown = (value: Record<string, unknown>, level: Level, path: string) => {
    const known: readonly string[] = REPAIR_KEYS[level];
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) warnings.push({ path: `${path}.${key}`, message: "unknown key, ignored as CKE ignores it" });
    }
  };
  const repair = data["repair"];
  unknown(repair, "repair", "repair");
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
