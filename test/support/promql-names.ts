import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPromtool, type PromtoolResult } from "./promtool.js";

const KEYWORDS = new Set(["and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "inf", "nan"]);

/**
 * The metric names a PromQL expression selects. promtool checks that the expression parses (see
 * {@link checkExpressions}); this reads names the way PromQL's lexer tells them apart: string literals, label
 * matchers `{…}`, ranges `[…]` and the label lists of by/without/on/ignoring/group_* are not names; an identifier
 * followed by `(` is a function or an aggregation; keywords and numbers are not names.
 */
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, " ")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names = [...bare.matchAll(/(?<![\w.:])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)].map((m) => m[1] as string);
  return [...new Set(names.filter((n) => !KEYWORDS.has(n.toLowerCase())))];
}

/** Grafana's interval variables, as Prometheus would get them from a dashboard. */
export function withGrafanaIntervals(expr: string): string {
  return expr.replace(/\$__rate_interval|\$__interval|\$__range/g, (v) => (v === "$__range" ? "1h" : v === "$__interval" ? "1m" : "5m"));
}

/** Runs `promtool check rules` on a rules file holding each expression as a recording rule: it parses them all. */
export async function checkExpressions(exprs: readonly string[]): Promise<PromtoolResult> {
  const dir = mkdtempSync(join(tmpdir(), "kintsugi-promql-"));
  try {
    const rules = exprs.map((expr, i) => `      - record: kintsugi:dashboard_expression_${i + 1}\n        expr: ${JSON.stringify(expr)}\n`).join("");
    writeFileSync(join(dir, "exprs.yaml"), `groups:\n  - name: dashboard\n    rules:\n${rules}`);
    return await runPromtool(["check", "rules", join(dir, "exprs.yaml")]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
