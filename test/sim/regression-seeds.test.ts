import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { REGRESSION_SEEDS } from "../../src/sim/sim-regression-seeds.js";
import { simulateApart } from "../support/simulate-apart.js";

describe("simulator regression seeds", () => {
  for (const c of REGRESSION_SEEDS) {
    for (const seed of c.seeds) {
      it(`finding ${c.finding}: seed ${seed} (${c.options.hours} h) keeps every invariant (broke ${c.brokeOnMain} before the fix)`, async () => {
        const report = await simulateApart({ ...c.options, seed });
        assert.equal(
          report.violation,
          null,
          `${report.violation?.invariant}: ${report.violation?.message}\n${report.details}\nreplay: npm run sim -- --seed ${seed} ${c.replay}`,
        );
        assert.equal(c.also?.(report) ?? null, null);
      });
    }
  }
});
