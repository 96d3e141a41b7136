import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { faultsWithout } from "../../src/sim/sim-faults.js";
import { simulate } from "../../src/sim/simulation.js";

// Bounded sweeps; `npm run sim -- --seeds 10000` sweeps further. A seed's run ends when every entry must have
// finished after the faults stopped.
describe("simulator sweep", () => {
  // A hundred machines through an hour of every fault, a pass a minute: about 0.2 s of CPU a seed (about 300 seeds a
  // minute on this machine unloaded).
  it("keeps every invariant over 200 seeds of 100 machines and an hour of every fault", async () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = await simulate({ seed, machines: 100, hours: 1, passSeconds: 60 });
      assert.equal(
        r.violation,
        null,
        `seed ${seed}: ${r.violation?.invariant}: ${r.violation?.message}\n${r.details}\nreplay: npm run sim -- --seed ${seed} --machines 100 --hours 1 --pass-seconds 60`,
      );
    }
  });

  // Six hours of faults, without CKE reboots: removing the control-plane rule, the
  // concurrency limit or the sabakan trigger's queue cap makes seeds 2, 6 and 5 of this sweep fail.
  it("keeps every invariant over seeds 1-11 of 100 machines and six hours without CKE reboots", async () => {
    for (let seed = 1; seed <= 11; seed++) {
      const r = await simulate({ seed, machines: 100, hours: 6, faults: faultsWithout(["cke-reboot"]) });
      assert.equal(
        r.violation,
        null,
        `seed ${seed}: ${r.violation?.invariant}: ${r.violation?.message}\n${r.details}\nreplay: npm run sim -- --seed ${seed} --machines 100 --hours 6 --without cke-reboot`,
      );
    }
  });
});
