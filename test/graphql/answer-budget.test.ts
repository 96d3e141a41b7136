import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { makeExecutableSchema } from "../../src/graphql/apollo-server.js";
import { execute, parse } from "graphql";
import { AnswerBudget, chargeLongAnswers, turnsOf } from "../../src/graphql/limits/answer-budget.js";
import { TURN_BYTES } from "../../src/graphql/limits/answer-turns.js";
import { turnsDuring } from "../support/loop-turns.js";

const nextTurns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

const FLEET = 10_000;

/** A schema with one long list (the coordinate of sabakan's search), counting the items graphql-js builds. */
function fleetSchema() {
  const built = { items: 0 };
  const machines = Array.from({ length: FLEET }, (_, i) => ({
    serial: `s${String(i).padStart(5, "0")}`,
    rack: i % 30,
    labels: [{ name: "product", value: "R640" }],
  }));
  const schema = chargeLongAnswers(
    makeExecutableSchema({
      typeDefs: `type Query { searchMachines: [Machine!]! repairQueueEnabled: Boolean! }
        type Machine { serial: String! rack: Int! labels: [Label!]! }
        type Label { name: String! value: String! }`,
      resolvers: {
        Query: { searchMachines: async () => machines, repairQueueEnabled: () => true },
        Machine: {
          serial: (m: { serial: string }) => {
            built.items++;
            return m.serial;
          },
        },
      },
    }),
  );
  return { schema, built };
}

const aliased = (n: number, selection: string) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: searchMachines { ${selection} }`).join(" ")} }`;

describe("AnswerBudget (an HTTP answer charged as its long lists resolve, before their items are built)", () => {
  it("estimates an answer at most its real size, and lets one within the budget through whole", async () => {
    const { schema, built } = fleetSchema();
    const budget = new AnswerBudget(10 * 1024 * 1024);
    const result = await execute({
      schema,
      document: parse(aliased(3, "serial rack labels { name value } __typename")),
      contextValue: { answerBudget: budget },
    });
    assert.equal(result.errors, undefined);
    assert.equal(built.items, 3 * FLEET);
    assert.ok(turnsOf(budget).laterTurns > 1, "the items were built over several turns");
    assert.ok(budget.spent > 0 && budget.spent <= Buffer.byteLength(JSON.stringify(result.data)), `${budget.spent} charged`);
  });

  it("fails a list past the budget before building its items, and every list after it", async () => {
    const { schema, built } = fleetSchema();
    const budget = new AnswerBudget(250_000);
    const result = await execute({ schema, document: parse(aliased(30, "serial")), contextValue: { answerBudget: budget } });
    assert.equal(result.data, null);
    assert.equal(budget.exceeded, true);
    assert.deepEqual(result.errors?.[0]?.extensions, { type: "LIMIT_EXCEEDED", code: "BAD_REQUEST", limit: "limits.max_response_bytes" });
    // 16 bytes a machine are estimated: one list of 10,000 fits in 250,000, the second passes it. The first list's
    // items past the first turn's share are not built either, then or in the turns after.
    assert.equal(built.items, TURN_BYTES / 16);
    await nextTurns(FLEET / (TURN_BYTES / 16) + 2);
    assert.equal(built.items, TURN_BYTES / 16);
  });

  it("counts aliases as they are written: a long one in every item costs its length each time", async () => {
    const { schema } = fleetSchema();
    const budget = new AnswerBudget(Number.MAX_SAFE_INTEGER);
    await execute({ schema, document: parse(`{ searchMachines { ${"x".repeat(1_000)}: serial } }`), contextValue: { answerBudget: budget } });
    assert.ok(budget.spent > FLEET * 1_000, String(budget.spent));
  });

  it("builds a long answer over turns of the event loop, byte for byte the answer built in one", async () => {
    const { schema } = fleetSchema();
    const document = parse(aliased(2, "serial rack labels { name value } __typename"));
    const whole = await execute({ schema, document, contextValue: {} });
    const { value: paced, turns } = await turnsDuring(() =>
      execute({ schema, document, contextValue: { answerBudget: new AnswerBudget(Number.MAX_SAFE_INTEGER) } }),
    );
    assert.equal(JSON.stringify(paced), JSON.stringify(whole));
    // Other work (here a turn counter; in a server /health and the other requests) ran while the answer was built.
    assert.ok(turns >= 2, `${turns} turns while the answer was built`);
  });

  it("leaves a request without a budget (a subscription's event) as it was", async () => {
    const { schema, built } = fleetSchema();
    const result = await execute({ schema, document: parse(aliased(3, "serial")), contextValue: {} });
    assert.equal(result.errors, undefined);
    assert.equal(built.items, 3 * FLEET);
  });
});
