import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { getIntrospectionQuery, parse, type OperationDefinitionNode } from "graphql";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import * as CliDocuments from "../../src/cli/documents.js";
import { FLEET_CEILING } from "../../src/graphql/limits/list-bounds.js";
import { operationCost } from "../../src/graphql/limits/operation-cost.js";
import { selectionWeight } from "../../src/graphql/limits/selection-count.js";
import { buildSchema } from "../../src/graphql/schema.js";
import { READS, SUBSCRIPTIONS } from "../../scripts/status-page/queries.js";
import { ABUSE_SHAPES, CKE_SEARCH_MACHINES, EVERY_MACHINE_FIELD } from "../support/cost-shapes.js";

const schema = buildSchema();
const DATA_CENTER = { fleet: 10_000 };
const cost = (query: string, variables?: Record<string, unknown>, sizes: { fleet: number } = DATA_CENTER, operationName?: string) =>
  operationCost(schema, parse(query), operationName, variables, sizes);

interface Ordinary {
  readonly name: string;
  readonly query: string;
  readonly operationName?: string | undefined;
  readonly variables?: Record<string, unknown>;
}

/** Every document kintsugi's own clients send, and CKE's, with the variables they send. */
function ordinaryDocuments(): Ordinary[] {
  const overview = readFileSync(new URL("../../scripts/graphiql-page/example-query.graphql", import.meta.url), "utf8");
  const introspection = getIntrospectionQuery({
    descriptions: true,
    inputValueDeprecation: true,
    schemaDescription: true,
    specifiedByUrl: true,
    directiveIsRepeatable: true,
  });
  const documents: Ordinary[] = [
    { name: "GraphiQL's overview", query: overview },
    { name: "GraphiQL's introspection", query: introspection },
    { name: "CKE's searchMachines", query: CKE_SEARCH_MACHINES },
    ...Object.entries(READS).map(([name, query]) => ({
      name: `the status page's ${name} read`,
      query,
      ...(name === "finished" && { variables: { since: "2026-11-26T00:00:00Z", limit: 2_000 } }),
    })),
    ...Object.entries(SUBSCRIPTIONS).map(([name, query]) => ({ name: `the status page's ${name} subscription`, query })),
  ];
  for (const [name, query] of Object.entries(CliDocuments)) {
    if (typeof query !== "string") continue;
    // What the CLI sends by default: `--last 20`; the other variables do not change the estimate.
    for (const definition of parse(query).definitions) {
      if (definition.kind === "OperationDefinition")
        documents.push({ name: `the CLI's ${name}`, query, operationName: (definition as OperationDefinitionNode).name?.value, variables: { last: 20 } });
    }
  }
  return documents;
}

describe("the cost model with real sizes", () => {
  it("estimates every ordinary document, over a fleet of 10,000 machines, at most half the default max_cost", () => {
    const estimates = ordinaryDocuments().map((d) => ({ ...d, cost: cost(d.query, d.variables, DATA_CENTER, d.operationName) }));
    // The list the README and DEFAULT_LIMITS quote, costliest first.
    for (const { name, cost: c } of [...estimates].sort((a, b) => b.cost - a.cost).slice(0, 10)) console.log(`${String(c).padStart(9)}  ${name}`);
    assert.ok(estimates.length > 40, `every CLI document is listed (${estimates.length})`);
    for (const { name, cost: c } of estimates) assert.ok(c <= DEFAULT_LIMITS.maxCost / 2, `${name}: ${c}`);
    assert.equal(estimates.find((e) => e.name === "CKE's searchMachines")?.cost, 530_000);
  });

  it("estimates every ordinary document under the default max_cost at the fleet assumed before sabakan counted it", () => {
    for (const d of ordinaryDocuments()) {
      const c = cost(d.query, d.variables, { fleet: FLEET_CEILING }, d.operationName);
      assert.ok(c <= DEFAULT_LIMITS.maxCost, `${d.name}: ${c}`);
    }
  });

  it("weighs every ordinary document's selections at most a quarter of the default max_selections", () => {
    const weights = ordinaryDocuments().map((d) => ({ ...d, weight: selectionWeight(parse(d.query), Number.MAX_SAFE_INTEGER) }));
    for (const { name, weight } of weights) assert.ok(weight <= DEFAULT_LIMITS.maxSelections / 4, `${name}: ${weight}`);
    assert.equal(weights.find((d) => d.name === "GraphiQL's introspection")?.weight, 469);
    // The largest documents the other limits let through: 30 aliases (max_aliases) of every machine field.
    for (const { name, query } of ABUSE_SHAPES) assert.ok(selectionWeight(parse(query), Number.MAX_SAFE_INTEGER) < DEFAULT_LIMITS.maxSelections, name);
  });

  for (const { name, query, estimate } of ABUSE_SHAPES) {
    it(`estimates ${name} over the default max_cost`, () => {
      assert.equal(cost(query), estimate);
      assert.ok(estimate > DEFAULT_LIMITS.maxCost);
    });
  }

  const CASES: Array<{ name: string; query: string; variables?: Record<string, unknown>; fleet?: number; want: number }> = [
    { name: "a scalar", query: "{ repairQueueEnabled }", want: 1 },
    { name: "searchMachines weighs the fleet sabakan answered", query: "{ searchMachines { spec { serial } } }", want: 10_000 * 3 },
    { name: "... and at least 1,000 machines before it answered", query: "{ searchMachines { spec { serial } } }", fleet: 0, want: 1_000 * 3 },
    { name: "autoRepairOutcomes weighs its `last` argument", query: "{ autoRepairOutcomes(last: 5) { sequence } }", want: 5 * 2 },
    { name: "... given as a variable", query: "query ($n: Int) { autoRepairOutcomes(last: $n) { sequence } }", variables: { n: 7 }, want: 7 * 2 },
    { name: "... or the variable's default", query: "query ($n: Int = 3) { autoRepairOutcomes(last: $n) { sequence } }", want: 3 * 2 },
    { name: "... at most the 1,000 kept", query: "{ autoRepairOutcomes(last: 5000) { sequence } }", want: 1_000 * 2 },
    { name: "... all 1,000 kept without it", query: "{ autoRepairOutcomes { sequence } }", want: 1_000 * 2 },
    { name: "skipped weighs the 1,000 an outcome lists", query: "{ autoRepairOutcomes(last: 1) { skipped { serial } } }", want: 1 + 1_000 * 2 },
    { name: "... or its `first`", query: "{ autoRepairOutcomes(last: 5) { skipped(first: 20) { serial } } }", want: 5 * (1 + 20 * 2) },
    {
      name: "machineStateCounts weighs a rack per machine at most, and every state",
      query: "{ machineStateCounts { machines racks { rack states { state machines } } } }",
      want: 1 + 1 + 10_000 * (1 + 1 + 7 * 3),
    },
    { name: "clusterGenerations weighs the 100 kept", query: "{ clusterGenerations { sequence } }", want: 100 * 2 },
    { name: "finishedRepairs weighs its limit", query: '{ finishedRepairs(since: "2026-11-26T00:00:00Z", limit: 50) { index } }', want: 50 * 2 },
    { name: "an entry's history weighs 20 records", query: '{ repairEntry(index: "1") { history { time } } }', want: 1 + 20 * 2 },
    { name: "a small list is assumed to hold 10", query: "{ healthChecks { name } }", want: 10 * 2 },
    {
      name: "a join weighs a fleet of its selection once, not once per entry",
      query: "{ searchRepairEntries { machine { spec { serial } } } }",
      want: 10_000 * (1 + 3) + 10_000 * 3,
    },
    {
      name: "a skipped field costs nothing",
      query: "query ($s: Boolean!) { repairQueueEnabled searchMachines @skip(if: $s) { spec { serial } } }",
      variables: { s: true },
      want: 1,
    },
    { name: "an excluded field costs nothing", query: "{ repairQueueEnabled searchMachines @include(if: false) { spec { serial } } }", want: 1 },
    {
      name: "a fragment costs what it expands to",
      query: "{ ...A ...A } fragment A on Query { a: repairQueueEnabled ...B ...B } fragment B on Query { b: autoRepairEnabled }",
      want: 2 * (1 + 2),
    },
    { name: "a cycle of fragments (refused by validation) costs nothing more", query: "{ ...A } fragment A on Query { repairQueueEnabled ...A }", want: 1 },
    { name: "a field the schema lacks costs nothing", query: "{ bogus { searchMachines { spec { serial } } } }", want: 0 },
    { name: "introspection lists are assumed to hold 10", query: "{ __schema { types { name } } }", want: 1 + 10 * 2 },
  ];
  for (const { name, query, variables, fleet, want } of CASES) {
    it(name, () => assert.equal(cost(query, variables, { fleet: fleet ?? DATA_CENTER.fleet }), want));
  }

  it("costs a document whose fragments expand exponentially in the time its text takes", () => {
    // 2^22 copies of a field once expanded (expanding them takes seconds); each fragment is costed once.
    const fragments = Array.from({ length: 22 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(" ");
    const query = `{ ...F0 } ${fragments} fragment F22 on Query { repairQueueEnabled }`;
    const started = performance.now();
    assert.equal(cost(query), 2 ** 22);
    assert.ok(performance.now() - started < 1_000);
  });

  it("weighs every field of a machine as EVERY_MACHINE_FIELD selects it", () => {
    assert.equal(cost(`{ searchMachines { ${EVERY_MACHINE_FIELD} } }`), 10_000 * 113);
  });
});
