import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WorkerSelection } from "../../src/domain/cluster/worker-selection.js";
import { simulate } from "../../src/sim/simulation.js";

type Report = Awaited<ReturnType<typeof simulate>>;
const comparable = (r: Report) => ({ ...r, checked: [...r.checked], faultKinds: [...r.faultKinds] });

// Cluster generation explored with the repairs and every fault (src/sim/sim-generation.ts): a round a minute, each
// checked by the generation invariants. Bounded for npm test (about 10 s of CPU here);
// `npm run sim -- --seeds 1000 --hours 2 --pass-seconds 60 --generation drawn` sweeps further.
describe("simulator sweep with cluster generation", () => {
  const firsts = new Map<WorkerSelection, Report>();
  for (const policy of ["weighted", "all_healthy"] as const satisfies readonly WorkerSelection[]) {
    it(`keeps every invariant over seeds 1-3 of 100 machines, an hour of every fault and generation under ${policy}`, async () => {
      for (let seed = 1; seed <= 3; seed++) {
        const r = await simulate({ seed, machines: 100, hours: 1, passSeconds: 60, generation: policy });
        assert.equal(
          r.violation,
          null,
          `seed ${seed}: ${r.violation?.invariant}: ${r.violation?.message}\n${r.details}\nreplay: npm run sim -- --seed ${seed} --machines 100 --hours 1 --pass-seconds 60 --generation ${policy}`,
        );
        assert.ok((r.checked.get("generation-only-while-enabled") ?? 0) > 0, "generation rounds ran");
        if (seed === 1) firsts.set(policy, r);
      }
    });
  }
  it("replays a seed with generation exactly (no timer on the real clock)", async () => {
    const again = await simulate({ seed: 1, machines: 100, hours: 1, passSeconds: 60, generation: "all_healthy" });
    const first = firsts.get("all_healthy");
    assert.ok(first, "the all_healthy sweep ran first");
    assert.deepEqual(comparable(again), comparable(first));
  });
});
