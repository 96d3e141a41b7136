import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseConfigWithWarnings } from "../../src/config/load-config.js";

const config = (types: readonly string[]) =>
  `repair:\n  repair_procedures:\n    - machine_types: ${JSON.stringify(types)}\n      repair_operations:\n        - operation: unreachable\n          repair_steps: [{ repair_command: [echo] }]\n          health_check_command: [echo, "true"]\n`;

describe("machine types that no sabakan machine can have are a warning, not a refusal", () => {
  const cases: ReadonlyArray<{ name: string; types: string[]; warned: number[] }> = [
    { name: "sabakan's own examples", types: ["IPMI-2.0", "iDRAC-9"], warned: [] },
    { name: "every character sabakan accepts", types: ["qemu", "a-b_c/d.e-09"], warned: [] },
    { name: "a space", types: ["qemu", "IPMI 2.0"], warned: [1] },
    { name: "a colon and a non-ASCII letter", types: ["type:1", "qemü"], warned: [0, 1] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { warnings } = parseConfigWithWarnings(config(c.types), "k.yaml");
      assert.deepEqual(
        warnings.map((w) => w.path),
        c.warned.map((j) => `repair.repair_procedures[0].machine_types[${j}]`),
      );
      for (const w of warnings) assert.match(w.message, /can never be a sabakan machine's BMC type/);
    });
  }
});
