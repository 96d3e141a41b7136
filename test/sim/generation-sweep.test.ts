import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WorkerSelection } from "../../src/domain/cluster/worker-selection.js";
import { simulate } from "../../src/sim/simulation.js";

// Cluster generation explored with the repairs and every fault (src/sim/sim-generation.ts): a round a minute, each
// checked by the generation invariants. Bounded for npm test; `npm run sim -- --seeds 1000 --generation drawn`
// sweeps further.
describe("simulator sweep with cluster generation", () => {
  for (const policy of ["weighted", "all_healthy"] as const satisfies readonly WorkerSelection[]) {
    it(`keeps every invariant over seeds 1-5 of 100 machines, an hour of every fault and generation under ${policy}`, async () => {
      for (let seed = 1; seed <= 5; seed++) {
        const r = await simulate({ seed, machines: 100, hours: 1, passSeconds: 60, generation: policy });
        assert.equal(
          r.violation,
          null,
          `seed ${seed}: ${r.violation?.invariant}: ${r.violation?.message}\n${r.details}\nreplay: npm run sim -- --seed ${seed} --machines 100 --hours 1 --pass-seconds 60 --generation ${policy}`,
        );
        assert.ok((r.checked.get("generation-only-while-enabled") ?? 0) > 0, "generation rounds ran");
      }
    });
  }
});
