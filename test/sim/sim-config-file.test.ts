import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadSimConfig } from "../../src/sim/sim-config-file.js";
import { simRepairConfig, type SimSettings } from "../../src/sim/sim-config.js";
import { SIM_ESCALATION } from "../../src/sim/sim-escalation.js";

const both = { sabakan: true, kubernetes: true };

describe("the simulator's config file, through the real loader", () => {
  const loaded: ReadonlyArray<{ name: string; settings: SimSettings }> = [
    { name: "CKE's proof", settings: { maxConcurrentRepairs: 2 } },
    {
      name: "every signal and a dwell the watch fits",
      settings: { maxConcurrentRepairs: 1, proof: { requires: ["node_ready", "boot_id_changed", "sabakan_healthy"], dwellSeconds: 900 } },
    },
    { name: "escalation", settings: { maxConcurrentRepairs: 3, escalation: SIM_ESCALATION } },
    {
      name: "a dwell longer than every watch (a running dwell holds the watch open)",
      settings: { maxConcurrentRepairs: 1, proof: { requires: ["node_ready"], dwellSeconds: 901 } },
    },
  ];
  for (const c of loaded) {
    it(`${c.name}: loads as the config the simulator builds in code`, () => {
      const r = loadSimConfig(c.settings, both);
      assert.ok(r.ok, r.ok ? "" : r.refused);
      assert.deepEqual(r.repair, simRepairConfig(c.settings));
    });
  }
  const refused: ReadonlyArray<{ name: string; settings: SimSettings; sections: typeof both; message: RegExp }> = [
    {
      name: "sabakan_healthy without sabakan",
      settings: { maxConcurrentRepairs: 1, proof: { requires: ["sabakan_healthy"], dwellSeconds: 0 } },
      sections: { sabakan: false, kubernetes: true },
      message: /sabakan_healthy can never hold without a sabakan section/,
    },
    {
      name: "node_ready without kubernetes",
      settings: { maxConcurrentRepairs: 1, proof: { requires: ["node_ready"], dwellSeconds: 0 } },
      sections: { sabakan: true, kubernetes: false },
      message: /node_ready can never hold without a kubernetes section/,
    },
  ];
  for (const c of refused) {
    it(`${c.name}: refused, as serve would refuse to start`, () => {
      const r = loadSimConfig(c.settings, c.sections);
      assert.equal(r.ok, false);
      assert.match(r.ok ? "" : r.refused, c.message);
    });
  }
});
