import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { before, describe, it } from "node:test";
import { parse } from "yaml";
import { exportedNames, scrapeAfterActivity } from "../support/busy-metrics.js";
import { metricNamesIn } from "../support/promql-names.js";
import { PROMTOOL_SKIP, runPromtool } from "../support/promtool.js";

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
