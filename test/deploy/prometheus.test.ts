import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { before, describe, it } from "node:test";
import { parse } from "yaml";
import { exportedNames, scrapeAfterActivity } from "../support/busy-metrics.js";
import { metricNamesIn } from "../support/promql-names.js";
import { PROMTOOL_SKIP, runPromtool } from "../support/promtool.js";
import { parsePrometheus } from "../support/prometheus-text.js";
import { tempDir } from "../support/temp-dir.js";
import { KintsugiMetrics } from "../../src/graphql/metrics.js";
import { createRepairEntry, type RepairEntry } from "../../src/domain/queue/repair-entry.js";

const DIR = fileURLToPath(new URL("../../deploy/prometheus/", import.meta.url));
const RULES = `${DIR}kintsugi-rules.yaml`;

interface RuleFile {
  groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; expr: string }> }>;
}
const rules = (parse(readFileSync(RULES, "utf8")) as RuleFile).groups.flatMap((g) => g.rules);

describe("deploy/prometheus: the alert rules and kintsugi's /metrics", () => {
  let metrics = "";
  before(async () => {
    metrics = await scrapeAfterActivity();
  });

  it("promtool check rules accepts the rules", { skip: PROMTOOL_SKIP }, async () => {
    const { code, output } = await runPromtool(["check", "rules", RULES]);
    assert.equal(code, 0, output);
    assert.match(output, new RegExp(`SUCCESS: ${rules.length} rules found`));
  });

  it("promtool test rules passes the rules' unit tests", { skip: PROMTOOL_SKIP }, async () => {
    const { code, output } = await runPromtool(["test", "rules", "kintsugi-rules.test.yaml"], { cwd: DIR });
    assert.equal(code, 0, output);
    assert.match(output, /SUCCESS/);
  });

  it("every alert has a unit test", () => {
    const tests = readFileSync(`${DIR}kintsugi-rules.test.yaml`, "utf8");
    for (const rule of rules) assert.match(tests, new RegExp(`alertname: ${rule.alert}\\n`), `${rule.alert} is not tested`);
  });

  it("the rules use only metrics kintsugi's /metrics exports, and Prometheus's own `up`", () => {
    const exported = exportedNames(metrics);
    for (const rule of rules) {
      for (const name of metricNamesIn(rule.expr)) assert.ok(name === "up" || exported.has(name), `${rule.alert} uses ${name}, which /metrics does not export`);
    }
  });

  it("/metrics, after repairs, holds and polls, passes promtool check metrics without a finding", { skip: PROMTOOL_SKIP }, async () => {
    for (const series of [
      'kintsugi_auto_repair_held_machines{reason="rack_limit"} 3',
      'kintsugi_repair_duration_seconds_count{status="failed"} 1',
      "kintsugi_auto_repair_poll_errors_total 1",
    ]) {
      assert.ok(metrics.includes(series), `the activity made ${series}`);
    }
    const { code, output } = await runPromtool(["check", "metrics"], { stdin: metrics });
    assert.equal(code, 0, output);
    assert.equal(output.trim(), "", "no lint finding");
  });
});

/**
 * Three replicas' own /metrics over one queue (one leader, two followers), as promtool's input series with each
 * scrape's instance: CKE's dashboards sum CKE's series over instances, and count each entry once (CKE's followers serve
 * none of the queue's gauges: metrics/collector.go's isNodeAvailable).
 */
describe("deploy/prometheus with three replicas: what each serves, through CKE's names", () => {
  const NOW = Date.UTC(2026, 7, 21, 6, 0, 0);
  const entry = (index: number, address: string, status: RepairEntry["status"]): RepairEntry => ({
    ...createRepairEntry({ address, machineType: "IPMI-2.0", operation: "unreachable", serial: null, source: "operator" }, NOW),
    index,
    status,
  });
  const entries = [entry(1, "10.0.0.1", "processing"), entry(2, "10.0.0.2", "failed")];
  const replica = (leader: boolean) =>
    new KintsugiMetrics({
      entries: () => entries,
      repairQueueEnabled: () => true,
      autoRepairEnabled: () => true,
      now: () => NOW,
      isLeader: () => leader,
      clusterGeneration: () => ({ current: null, latest: null }),
      clusterGenerationEnabled: () => true,
      integrationVerdict: () => ({ successful: true, at: NOW }),
    });

  it("sum(cke_repair_queue_items) counts the queue once; one cke_leader of three is 1", { skip: PROMTOOL_SKIP }, async () => {
    const series: string[] = [];
    for (const [i, leader] of [true, false, false].entries()) {
      for (const sample of parsePrometheus((await replica(leader).text()).body).samples) {
        const labels = { job: "kintsugi", instance: `boot-${i + 1}:10180`, ...sample.labels };
        const selector = `${sample.name}{${Object.entries(labels)
          .map(([k, v]) => `${k}="${v}"`)
          .join(", ")}}`;
        series.push(`      - series: ${JSON.stringify(selector)}\n        values: "${sample.value}x3"`);
      }
    }
    const expect = (expr: string, value: number) =>
      `      - { expr: ${JSON.stringify(expr)}, eval_time: 2m, exp_samples: [{ labels: "{}", value: ${value} }] }`;
    const dir = tempDir("kintsugi-promtool-");
    try {
      const file = join(dir.path, "three-replicas.test.yaml");
      writeFileSync(
        file,
        [
          `rule_files: [${JSON.stringify(`${DIR}cke-compatible.rules.yaml`)}]`,
          "evaluation_interval: 1m",
          "tests:",
          "  - interval: 1m",
          "    input_series:",
          ...series,
          "    promql_expr_test:",
          expect('sum(cke_repair_queue_items{status="processing"})', 1),
          expect('sum(cke_repair_queue_items{status="failed"})', 1),
          expect("count(cke_repair_queue_entries)", 2),
          expect("count(cke_machine_repair_status)", 8),
          expect("sum(cke_leader)", 1),
          expect("count(cke_leader)", 3),
          expect("count(cke_sabakan_integration_successful)", 1),
          "",
        ].join("\n"),
      );
      const { code, output } = await runPromtool(["test", "rules", file]);
      assert.equal(code, 0, output);
    } finally {
      dir.remove();
    }
  });
});
