import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MachineSource } from "../../src/adapters/ports.js";
import type { MachineQueryVariables } from "../../src/domain/sabakan/machine-params.js";
import type { SabakanMachine } from "../../src/domain/sabakan/sabakan-machine.js";
import { BMC_LOOKUP_INTERVAL_MS, BmcDirectory } from "../../src/runner/bmc-directory.js";

const NOW = Date.parse("2026-11-27T03:00:00Z");

const machine = (ipv4: string[], bmcAddress: string | null): SabakanMachine => ({
  serial: `s-${ipv4[0]}`,
  rack: 1,
  indexInRack: 1,
  role: "cs",
  ipv4,
  bmcType: "IPMI-2.0",
  state: "HEALTHY",
  durationSeconds: 0,
  stateSince: NOW,
  registerDate: NOW,
  retireDate: NOW,
  labels: {},
  ...(bmcAddress !== null && { bmc: { address: bmcAddress, type: "IPMI-2.0" } }),
});

/** A sabakan that answers `machines` (or fails) and counts the questions. */
function source(answer: () => SabakanMachine[]): MachineSource & { asked: MachineQueryVariables[] } {
  const asked: MachineQueryVariables[] = [];
  return { asked, searchMachines: async (variables) => (asked.push(variables), answer()) };
}

describe("BmcDirectory", () => {
  it("remembers the BMC of every address of every machine in an answer it passes on, canonical", async () => {
    const bmcs = new BmcDirectory();
    const recorded = bmcs.recording(source(() => [machine(["10.0.0.7", "10.0.0.17"], "10.0.1.7"), machine(["10.0.0.8"], null)]));
    await recorded.searchMachines({ having: { states: ["UNHEALTHY"] }, notHaving: null });
    assert.deepEqual(bmcs.bmcOf("10.0.0.17"), { address: "10.0.1.7", type: "IPMI-2.0" });
    assert.deepEqual(bmcs.bmcOf("::ffff:10.0.0.7"), { address: "10.0.1.7", type: "IPMI-2.0" });
    assert.equal(bmcs.bmcOf("10.0.0.8"), null, "sabakan gave no usable BMC address");
    assert.equal(bmcs.bmcOf("10.0.0.9"), null, "never named");
  });

  const lookUps: Array<{
    name: string;
    known: string[];
    queue: string[];
    times: number[];
    asks: number;
    fails?: boolean;
    want: Record<string, string | null>;
  }> = [
    {
      name: "every machine in the queue known: sabakan is not asked",
      known: ["10.0.0.1"],
      queue: ["10.0.0.1"],
      times: [NOW],
      asks: 0,
      want: { "10.0.0.1": "10.0.1.1" },
    },
    {
      name: "an unknown machine: sabakan asked once for every machine",
      known: [],
      queue: ["10.0.0.2"],
      times: [NOW],
      asks: 1,
      want: { "10.0.0.2": "10.0.1.2" },
    },
    {
      name: "a machine sabakan does not have: asked again only after the interval",
      known: [],
      queue: ["10.9.9.9"],
      times: [NOW, NOW + 1_000, NOW + BMC_LOOKUP_INTERVAL_MS - 1, NOW + BMC_LOOKUP_INTERVAL_MS],
      asks: 2,
      want: { "10.9.9.9": null },
    },
    { name: "sabakan down: logged, no address, no rejection", known: [], queue: ["10.0.0.2"], times: [NOW], asks: 1, fails: true, want: { "10.0.0.2": null } },
    { name: "an empty queue: sabakan is not asked", known: [], queue: [], times: [NOW], asks: 0, want: {} },
  ];
  for (const c of lookUps) {
    it(c.name, async () => {
      const bmcs = new BmcDirectory();
      bmcs.learn(c.known.map((a) => machine([a], a.replace(".0.0.", ".0.1."))));
      const sabakan = source(() => {
        if (c.fails) throw new Error("sabakan at http://sabakan/graphql: unreachable: ECONNREFUSED");
        return [machine(["10.0.0.1"], "10.0.1.1"), machine(["10.0.0.2"], "10.0.1.2")];
      });
      const logged: string[] = [];
      for (const t of c.times) await bmcs.lookUp(c.queue, sabakan, t, (message) => logged.push(message));
      assert.equal(sabakan.asked.length, c.asks);
      for (const asked of sabakan.asked) assert.deepEqual(asked, { having: null, notHaving: null });
      assert.equal(logged.length, c.fails ? 1 : 0);
      for (const [address, want] of Object.entries(c.want)) assert.equal(bmcs.bmcOf(address)?.address ?? null, want, address);
    });
  }

  it("without sabakan it asks nothing and knows nothing", async () => {
    const bmcs = new BmcDirectory();
    await bmcs.lookUp(["10.0.0.1"], null, NOW, () => assert.fail("nothing to log"));
    assert.equal(bmcs.bmcOf("10.0.0.1"), null);
  });
});
