import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { metricNamesIn } from "../support/promql-names.js";
import { PROMTOOL_SKIP, runPromtool } from "../support/promtool.js";

const DIR = fileURLToPath(new URL("../../deploy/prometheus/", import.meta.url));
const RULES = `${DIR}cke-compatible.rules.yaml`;
const METRICS_SOURCE = ["metrics.ts", "cluster-metrics.ts"]
  .map((f) => readFileSync(fileURLToPath(new URL(`../../src/graphql/${f}`, import.meta.url)), "utf8"))
  .join("\n");

interface RuleFile {
  groups: Array<{ name: string; rules: Array<{ record?: string; expr: string }> }>;
}
const rules = (parse(readFileSync(RULES, "utf8")) as RuleFile).groups.flatMap((g) => g.rules);

/**
 * CKE's leader, repair-queue, auto-repair and sabakan-integration metrics with their labels, as declared in
 * github.com/cybozu-go/cke metrics/metrics.go (namespace "cke"). Its reboot-queue and operation-phase metrics have
 * no kintsugi counterpart and are left out on purpose.
 */
const CKE_METRICS: ReadonlyArray<{ name: string; labels: readonly string[] }> = [
  { name: "cke_leader", labels: [] },
  { name: "cke_repair_queue_enabled", labels: [] },
  { name: "cke_auto_repair_enabled", labels: [] },
  { name: "cke_repair_queue_items", labels: ["status"] },
  { name: "cke_repair_queue_entries", labels: ["index", "address", "operation", "status", "step"] },
  { name: "cke_machine_repair_status", labels: ["address", "status"] },
  { name: "cke_sabakan_integration_successful", labels: [] },
  { name: "cke_sabakan_integration_timestamp_seconds", labels: [] },
  { name: "cke_sabakan_workers", labels: ["role"] },
  { name: "cke_sabakan_unused_machines", labels: [] },
];

describe("deploy/prometheus: CKE-compatible recording rules", () => {
  it("promtool check rules accepts them", { skip: PROMTOOL_SKIP }, async () => {
    const { code, output } = await runPromtool(["check", "rules", RULES]);
    assert.equal(code, 0, output);
    assert.match(output, new RegExp(`SUCCESS: ${rules.length} rules found`));
  });

  it("promtool test rules passes their unit tests (CKE's series and labels from a scrape-like input)", { skip: PROMTOOL_SKIP }, async () => {
    const { code, output } = await runPromtool(["test", "rules", "cke-compatible.rules.test.yaml"], { cwd: DIR });
    assert.equal(code, 0, output);
    assert.match(output, /SUCCESS/);
  });

  it("every CKE repair, auto-repair and sabakan metric of CKE's metrics.go has exactly one rule", () => {
    const recorded = rules.map((r) => r.record);
    for (const { name } of CKE_METRICS) assert.equal(recorded.filter((r) => r === name).length, 1, `${name} has no rule`);
    assert.deepEqual([...recorded].sort(), CKE_METRICS.map((m) => m.name).sort(), "no rule outside CKE's names");
  });

  it("every CKE metric is unit-tested", () => {
    const tests = readFileSync(`${DIR}cke-compatible.rules.test.yaml`, "utf8");
    for (const { name } of CKE_METRICS) assert.match(tests, new RegExp(`expr: ${name}\\b`), `${name} is not tested`);
  });

  it("the rules read only series kintsugi's /metrics declares", () => {
    for (const rule of rules) {
      for (const name of metricNamesIn(rule.expr))
        assert.ok(METRICS_SOURCE.includes(`name: "${name}"`), `${rule.record} uses ${name}, which kintsugi does not export`);
    }
  });

  it("the rule of a label-less CKE gauge drops kintsugi's extra labels", () => {
    const unused = rules.find((r) => r.record === "cke_sabakan_unused_machines");
    assert.match(unused?.expr ?? "", /sum without \(role\)/);
  });
});
