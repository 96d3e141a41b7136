import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse, type DocumentNode } from "graphql";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { AnalysisCache, KEPT_TEXTS, KEPT_VARIANTS } from "../../src/graphql/limits/analysis-cache.js";
import { OperationLimits } from "../../src/graphql/limits/operation-limits.js";
import { buildSchema } from "../../src/graphql/schema.js";

const schema = buildSchema();

describe("AnalysisCache", () => {
  /** A cache and counters of how often it ran each check. */
  function counted() {
    const cache = new AnalysisCache();
    const runs = { shape: 0, cost: 0 };
    const shape = (text: string) =>
      cache.shape(text, () => {
        runs.shape++;
        return parse(text);
      });
    const cost = (document: DocumentNode, request: { operationName?: string; variables?: Record<string, unknown> }, fleet = 0) =>
      cache.costVerdict(document, request, { fleet }, () => {
        runs.cost++;
        return null;
      });
    return { shape, cost, runs };
  }

  it("checks a repeated text's shape once and hands back the same document", () => {
    const { shape, runs } = counted();
    const first = shape("{ repairQueueEnabled }");
    assert.equal(shape("{ repairQueueEnabled }"), first);
    assert.equal(runs.shape, 1);
    assert.notEqual(shape("{ repairQueueEnabled } "), first, "another text is another document");
    assert.equal(runs.shape, 2);
  });

  const COST_CASES: Array<{
    name: string;
    query: string;
    first: [Record<string, unknown>, number];
    second: [Record<string, unknown>, number];
    costedAgain: boolean;
  }> = [
    { name: "the same request and fleet", query: "{ repairQueueEnabled }", first: [{}, 0], second: [{}, 0], costedAgain: false },
    {
      name: "undeclared variables (they cannot reach the estimate)",
      query: "{ repairQueueEnabled }",
      first: [{ variables: { a: 1 } }, 0],
      second: [{ variables: { a: 2 } }, 0],
      costedAgain: false,
    },
    {
      name: "another value of a declared variable",
      query: "query ($n: Int) { autoRepairOutcomes(last: $n) { sequence } }",
      first: [{ variables: { n: 1 } }, 0],
      second: [{ variables: { n: 2 } }, 0],
      costedAgain: true,
    },
    {
      name: "another operation name",
      query: "query A { repairQueueEnabled } query B { autoRepairEnabled }",
      first: [{ operationName: "A" }, 0],
      second: [{ operationName: "B" }, 0],
      costedAgain: true,
    },
    { name: "another fleet size", query: "{ repairQueueEnabled }", first: [{}, 0], second: [{}, 10_000], costedAgain: true },
  ];
  for (const { name, query, first, second, costedAgain } of COST_CASES) {
    it(`${costedAgain ? "costs again" : "keeps the cost verdict"} for ${name}`, () => {
      const { shape, cost, runs } = counted();
      const document = shape(query) as DocumentNode;
      cost(document, first[0], first[1]);
      cost(document, second[0], second[1]);
      assert.equal(runs.cost, costedAgain ? 2 : 1);
    });
  }

  it(`keeps at most ${KEPT_VARIANTS} verdicts per document and ${KEPT_TEXTS} texts, then starts over`, () => {
    const { shape, cost, runs } = counted();
    const document = shape("query ($n: Int) { autoRepairOutcomes(last: $n) { sequence } }") as DocumentNode;
    for (let n = 0; n <= KEPT_VARIANTS; n++) cost(document, { variables: { n } });
    cost(document, { variables: { n: 0 } });
    assert.equal(runs.cost, KEPT_VARIANTS + 2, "the first variant was dropped when the verdicts started over");
    for (let i = 0; i < KEPT_TEXTS; i++) shape(`query Q${i} { repairQueueEnabled }`);
    runs.shape = 0;
    shape("query Q0 { repairQueueEnabled }");
    assert.equal(runs.shape, 1, "the first text was dropped when the texts started over");
  });
});

describe("OperationLimits with kept verdicts: a verdict is never reused wrongly", () => {
  const THREE_SEARCHES = "{ a: searchMachines { spec { serial } } b: searchMachines { spec { serial } } c: searchMachines { spec { serial } } }";
  const fleet = { machines: 0 };
  const limits = new OperationLimits(schema, { ...DEFAULT_LIMITS, maxCost: 50_000 }, () => ({ fleet: fleet.machines }));

  it("admits three searches at the floor of 1,000 machines (9,000), refuses the same text once sabakan answered 10,000 (90,000)", () => {
    assert.equal(limits.admit({ query: THREE_SEARCHES }), null);
    fleet.machines = 10_000;
    assert.match(limits.admit({ query: THREE_SEARCHES })?.[0]?.message ?? "", /estimated cost is 90000, more than the limit of 50000/);
  });

  it("refuses `last: 100` of skipped outcomes after admitting `last: 2` of the same text", () => {
    const query = "query ($n: Int) { autoRepairOutcomes(last: $n) { skipped { serial } } }";
    assert.equal(limits.admit({ query, variables: { n: 2 } }), null);
    assert.match(limits.admit({ query, variables: { n: 100 } })?.[0]?.message ?? "", /estimated cost is 200100, more than the limit of 50000/);
    assert.equal(limits.admit({ query, variables: { n: 2 } }), null);
  });
});
