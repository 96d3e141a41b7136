import { readTextBounded } from "../support/bounded-read.js";
import { parseDocument } from "../domain/shared/yaml.js";
import { z } from "../support/zod.js";
import type { TokenEntry } from "../auth/tokens.js";
import { tokenList } from "./auth-schema.js";
import { configErrorMap } from "./config-schema.js";
import type { ConfigProblem } from "./load-config.js";
import { readFailure } from "./named-files.js";

// Messages about a tokens file never quote what it holds: a value may be a secret written in the wrong place.
const quietErrorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type")
    return issue.input === undefined ? "is required" : `must be ${issue.expected === "array" ? "a list" : `a ${issue.expected}`}`;
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map(String).join(", ")}`;
  return configErrorMap(issue);
};

function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((segment) => (typeof segment === "number" ? `[${segment}]` : `.${String(segment)}`))
    .join("")
    .replace(/^\./, "");
}

/**
 * Reads a tokens file: a YAML list of `{ name, role, sha256 }`, the same as `auth.tokens` (a mapping with only a
 * `tokens` key holding that list is taken too). Problems are reported by line, column and key path, never with the
 * file's content.
 */
export function readTokensFile(path: string): { ok: true; tokens: TokenEntry[] } | { ok: false; problems: ConfigProblem[] } {
  let text: string;
  try {
    text = readTextBounded(path);
  } catch (error) {
    return { ok: false, problems: [{ path: "", message: `cannot read the tokens file: ${readFailure(error)}` }] };
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((error) => {
        const at = error.linePos?.[0];
        return { path: "", message: `invalid YAML${at ? ` at line ${at.line}, column ${at.col}` : ""} (${error.code})` };
      }),
    };
  }
  let data: unknown;
  try {
    data = doc.toJS() ?? [];
  } catch {
    return { ok: false, problems: [{ path: "", message: "invalid YAML (unresolvable aliases)" }] };
  }
  if (data !== null && typeof data === "object" && !Array.isArray(data) && Object.keys(data).length === 1 && "tokens" in data)
    data = (data as { tokens: unknown }).tokens ?? [];
  if (!Array.isArray(data)) return { ok: false, problems: [{ path: "", message: "must be a YAML list of { name, role, sha256 }" }] };
  const result = tokenList.safeParse(data, { error: quietErrorMap });
  if (!result.success) {
    return {
      ok: false,
      problems: result.error.issues.flatMap((issue) =>
        issue.code === "unrecognized_keys"
          ? issue.keys.map((key) => ({ path: pathOf([...issue.path, key]), message: "unknown key" }))
          : [{ path: pathOf(issue.path), message: issue.message }],
      ),
    };
  }
  return { ok: true, tokens: result.data };
}
