import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { metricNamesIn, withGrafanaIntervals } from "../support/promql-names.js";

describe("metricNamesIn (the metric names a PromQL expression selects)", () => {
  const cases: Array<[string, string, string[]]> = [
    ["an aggregation", "max(kintsugi_leader) == 0", ["kintsugi_leader"]],
    ["label matchers and values", 'up{job="kintsugi", instance=~"boot-.*"} == 0', ["up"]],
    ["grouping labels are not names", "sum by (result, le) (rate(a_bucket[5m])) * 60", ["a_bucket"]],
    ["a function inside a function", "histogram_quantile(0.9, max by (le, status) (rate(b_bucket[1h])))", ["b_bucket"]],
    ["binary operators, keywords and vector matching", "x > bool 1 and on() y unless ignoring(instance) z", ["x", "y", "z"]],
    ["numbers, durations and offsets", "1e3 * foo offset 5m + 0.5", ["foo"]],
    ["a name that contains a keyword or a function's name", "sum(max_by_hand) + on_call_total", ["max_by_hand", "on_call_total"]],
    ["a selector by __name__ only", '{__name__="hidden"}', []],
  ];
  for (const [name, expr, expected] of cases) it(name, () => assert.deepEqual(metricNamesIn(expr), expected));

  it("fills Grafana's interval variables", () => {
    assert.equal(
      withGrafanaIntervals("rate(x[$__rate_interval]) + rate(y[$__interval]) + increase(z[$__range])"),
      "rate(x[5m]) + rate(y[1m]) + increase(z[1h])",
    );
  });
});
