import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { faultsWithout } from "../../src/sim/sim-faults.js";
import { simulate } from "../../src/sim/simulation.js";

// A bounded sweep: every seed runs a hundred machines through an hour of faults and then until every entry must have
// finished, with a pass a minute (about half a second of CPU a seed). `npm run sim -- --seeds 10000` sweeps further.
const SEEDS = 100;

describe("simulator sweep", () => {
  it(`keeps every invariant over ${SEEDS} seeds of 100 machines`, { todo: "needs h24a's, h24b's and h24c's fixes (the findings break seeds of today's code)" }, async () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = await simulate({ seed, machines: 100, hours: 1, passSeconds: 60 });
      assert.equal(r.violation, null, `seed ${seed}: ${r.violation?.invariant}: ${r.violation?.message}\n${r.details}\nreplay: npm run sim -- --seed ${seed} --machines 100 --hours 1 --pass-seconds 60`);
    }
  });

  it("keeps every invariant over 20 seeds without the faults of the findings not fixed here (CKE reboots)", async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = await simulate({ seed, machines: 100, hours: 1, passSeconds: 60, faults: faultsWithout(["cke-reboot"]) });
      assert.equal(r.violation, null, `seed ${seed}: ${r.violation?.invariant}: ${r.violation?.message}\n${r.details}`);
    }
  });
});
