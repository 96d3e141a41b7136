import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GENERATION_SWEEP } from "../../src/sim/sim-sweep.js";
import { simulateApart } from "../support/simulate-apart.js";

type Report = Awaited<ReturnType<typeof simulateApart>>;
const comparable = (r: Report) => ({ ...r, checked: [...r.checked], faultKinds: [...r.faultKinds] });

// Cluster generation explored with the repairs and every fault (src/sim/sim-generation.ts): a round a minute, each
// checked by the generation invariants. Bounded for npm test (about 10 s of CPU here);
// `npm run sim -- --seeds 1000 --hours 2 --pass-seconds 60 --classic --generation drawn` sweeps further.
describe("simulator sweep with cluster generation", () => {
  const firsts = new Map<string, Report>();
  for (const run of GENERATION_SWEEP) {
    it(`keeps every invariant over ${run.seeds.length} seeds of ${run.name}`, async () => {
      for (const seed of run.seeds) {
        const r = await simulateApart({ ...run.options, seed });
        assert.equal(
          r.violation,
          null,
          `seed ${seed}: ${r.violation?.invariant}: ${r.violation?.message}\n${r.details}\nreplay: npm run sim -- --seed ${seed} ${run.replay}`,
        );
        assert.ok((r.checked.get("generation-only-while-enabled") ?? 0) > 0, "generation rounds ran");
        if (seed === run.seeds[0]) firsts.set(run.name, r);
      }
    });
  }
  it("replays a seed with generation exactly (no timer on the real clock)", async () => {
    const run = GENERATION_SWEEP.at(-1);
    assert.ok(run);
    const first = firsts.get(run.name);
    assert.ok(first, "the sweep ran first");
    const again = await simulateApart({ ...run.options, seed: run.seeds[0] ?? 1 });
    assert.deepEqual(comparable(again), comparable(first));
  });
});
