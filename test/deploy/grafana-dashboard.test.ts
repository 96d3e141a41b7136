import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { exportedNames, scrapeAfterActivity } from "../support/busy-metrics.js";
import { checkExpressions, metricNamesIn, withGrafanaIntervals } from "../support/promql-names.js";
import { PROMTOOL_SKIP } from "../support/promtool.js";

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid?: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Array<{ expr?: string; refId?: string }>;
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: string }> };
}

const TEXT = readFileSync(new URL("../../deploy/grafana/kintsugi-dashboard.json", import.meta.url), "utf8");

describe("deploy/grafana/kintsugi-dashboard.json", () => {
  let dashboard: Dashboard;
  let metrics = "";
  before(async () => {
    metrics = await scrapeAfterActivity();
  });

  it("is valid JSON with a uid, a Prometheus data source variable, and panels that each query it", () => {
    dashboard = JSON.parse(TEXT) as Dashboard;
    assert.equal(dashboard.uid, "kintsugi");
    assert.deepEqual(
      dashboard.templating.list.map((v) => [v.name, v.type, v.query]),
      [["datasource", "datasource", "prometheus"]],
    );
    assert.ok(dashboard.panels.length >= 10);
    for (const panel of dashboard.panels) {
      assert.equal(panel.datasource?.uid, "${datasource}", panel.title);
      assert.ok((panel.targets ?? []).length > 0, `${panel.title} has no query`);
      for (const target of panel.targets ?? []) assert.ok(target.expr && target.refId, `${panel.title}: a target without expr or refId`);
    }
    assert.equal(new Set(dashboard.panels.map((p) => p.id)).size, dashboard.panels.length, "panel ids are unique");
  });

  it("lays the panels out on Grafana's 24-column grid without overlaps", () => {
    const cells = new Set<string>();
    for (const { title, gridPos: g } of dashboard.panels) {
      assert.ok(g.x >= 0 && g.w > 0 && g.x + g.w <= 24, `${title} is off the grid`);
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          assert.ok(!cells.has(`${x},${y}`), `${title} overlaps another panel at ${x},${y}`);
          cells.add(`${x},${y}`);
        }
    }
  });

  it("shows the queue by status, repairs finished, machines held and skipped by reason, the leader and the polls", () => {
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ""));
    const uses = (name: string) => exprs.some((e) => metricNamesIn(withGrafanaIntervals(e)).includes(name));
    for (const name of [
      "kintsugi_repair_queue_items",
      "kintsugi_repair_duration_seconds_count",
      "kintsugi_auto_repair_held_machines",
      "kintsugi_auto_repair_skipped_machines",
      "kintsugi_leader",
      "kintsugi_auto_repair_poll_duration_seconds_count",
    ]) {
      assert.ok(uses(name), `no panel shows ${name}`);
    }
  });

  it("every panel's expression parses (promtool check rules, each one a recording rule)", { skip: PROMTOOL_SKIP }, async () => {
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => withGrafanaIntervals(t.expr ?? "")));
    const { code, output } = await checkExpressions(exprs);
    assert.equal(code, 0, output);
    assert.match(output, new RegExp(`SUCCESS: ${exprs.length} rules found`));
  });

  it("every expression selects only metrics kintsugi's /metrics exports", () => {
    const exported = exportedNames(metrics);
    for (const panel of dashboard.panels) {
      for (const target of panel.targets ?? []) {
        const names = metricNamesIn(withGrafanaIntervals(target.expr ?? ""));
        assert.ok(names.length > 0, `${panel.title}: ${target.expr} selects nothing`);
        for (const name of names) assert.ok(exported.has(name), `${panel.title} queries ${name}, which /metrics does not export`);
      }
    }
  });
});
