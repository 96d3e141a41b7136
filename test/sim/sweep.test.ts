import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SWEEP } from "../../src/sim/sim-sweep.js";
import { simulateApart } from "../support/simulate-apart.js";

// The bounded sweep of src/sim/sim-sweep.ts (every mutant of src/sim/mutants/ must fail it or the regression and
// generation sweeps: npm run sim:mutants); `npm run sim -- --seeds 10000` sweeps further.
describe("simulator sweep", () => {
  for (const run of SWEEP) {
    it(`keeps every invariant over ${run.seeds.length} seeds of ${run.name}`, async () => {
      for (const seed of run.seeds) {
        const r = await simulateApart({ ...run.options, seed });
        assert.equal(
          r.violation,
          null,
          `seed ${seed}: ${r.violation?.invariant}: ${r.violation?.message}\n${r.details}\nreplay: npm run sim -- --seed ${seed} ${run.replay}`,
        );
        assert.ok(r.passes > 0, `seed ${seed} ran`);
      }
    });
  }
});
