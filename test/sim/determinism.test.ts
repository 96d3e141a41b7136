import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { simulate } from "../../src/sim/simulation.js";

const strip = (r: Awaited<ReturnType<typeof simulate>>) => ({ ...r, checked: [...r.checked], faultKinds: [...r.faultKinds] });

describe("simulator determinism", () => {
  for (const model of ["full", "classic"] as const) {
    it(`gives the same report, violation and history for the same seed, and another history for another seed (${model} model)`, async () => {
      const a = await simulate({ seed: 3, machines: 60, hours: 1, passSeconds: 60, model });
      const b = await simulate({ seed: 3, machines: 60, hours: 1, passSeconds: 60, model });
      const c = await simulate({ seed: 4, machines: 60, hours: 1, passSeconds: 60, model });
      assert.deepEqual(strip(a), strip(b));
      assert.ok(a.faults > 0, "faults were injected");
      assert.notDeepEqual(strip(a).faultKinds, strip(c).faultKinds);
    });
  }
});
