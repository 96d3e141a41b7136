import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";

/** The query GraphiQL opens with on a first visit (bundled into the page by scripts/build-graphiql.mjs). */
const EXAMPLE_QUERY = readFileSync(new URL("../../scripts/graphiql-page/example-query.graphql", import.meta.url), "utf8");

describe("GraphiQL's example query", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi();
    await k.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.0.0.1") { index } }`);
  });
  after(() => k.dispose());

  it("runs on a real server without errors, within the default limits", async () => {
    const res = await k.gql(EXAMPLE_QUERY);
    assert.equal(res.status, 200);
    assert.equal(res.errors, undefined, JSON.stringify(res.errors));
    assert.equal(res.data?.["repairQueueEnabled"], true);
    assert.deepEqual(
      res.data?.["searchRepairEntries"].map((e: { address: string }) => e.address),
      ["10.0.0.1"],
    );
    assert.deepEqual(Object.keys(res.data ?? {}), ["repairQueueEnabled", "autoRepairEnabled", "searchRepairEntries", "autoRepairOutcomes", "constraints"]);
  });

  it("explains itself in comments and names the live alternative", () => {
    const comments = EXAMPLE_QUERY.split("\n").filter((line) => line.trimStart().startsWith("#"));
    assert.ok(comments.length >= 10, "comments explain the fields");
    assert.match(EXAMPLE_QUERY, /subscription \{ repairEntryEvents/);
    assert.doesNotMatch(EXAMPLE_QUERY, /Welcome to GraphiQL/);
  });
});
