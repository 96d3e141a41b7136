import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideIntake } from "../../../src/domain/intake/auto-repair-intake.js";
import { MACHINE_STATES } from "../../../src/domain/sabakan/machine-params.js";
import { createRepairEntry, type RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import type { NodeStanding, SabakanMachine } from "../../../src/domain/sabakan/sabakan-machine.js";
import { seededRandom } from "../../support/seeded-random.js";

const NOW = Date.UTC(2026, 10, 22);

function randomFleet(rand: () => number) {
  const int = (n: number) => Math.floor(rand() * n);
  const racks = 1 + int(12);
  const machines: SabakanMachine[] = [];
  const nodes = new Map<string, NodeStanding>();
  for (let rack = 0; rack < racks; rack++) {
    for (let i = 0, n = 1 + int(20); i < n; i++) {
      // Addresses collide on purpose now and then (a shared first IPv4 is a data error the trigger must survive).
      const address = rand() < 0.02 ? "10.255.0.1" : `10.${rack}.${i}.1`;
      machines.push({
        serial: `r${String(rack).padStart(2, "0")}m${String(i).padStart(2, "0")}`,
        rack,
        role: rand() < 0.05 ? "boot" : "cs",
        ipv4: rand() < 0.03 ? [] : [address, `10.${rack}.${i}.2`],
        bmcType: rand() < 0.5 ? "IPMI-2.0" : "iDRAC-9",
        state: MACHINE_STATES[int(MACHINE_STATES.length)] ?? "HEALTHY",
        durationSeconds: rand() * 4000,
        stateSince: 0,
        indexInRack: i,
        registerDate: 0,
        retireDate: 0,
        labels: {},
      });
      const r = rand();
      nodes.set(address, r < 0.3 ? "not-a-node" : r < 0.4 ? "rebooting" : "node");
    }
  }
  return { machines, nodes };
}

describe("sabakan-triggered repair under random fleets and failure storms (property)", () => {
  it("never leaves more persisting entries than maximum-repair-queue-entries, nor two entries for one address", () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const rand = seededRandom(seed);
      const { machines, nodes } = randomFleet(rand);
      const constraints = {
        maximumRepairQueueEntries: Math.floor(rand() * 30),
        waitSecondsToRepairRebooting: Math.floor(rand() * 3000),
        maximumUnhealthyMachinesPerRack: Math.floor(rand() * 5),
      };
      let entries: RepairEntry[] = [];
      let next = 1;
      for (let round = 0; round < 8; round++) {
        // A storm: some rounds make whole racks unreachable at once, as a power failure would.
        const storm = rand() < 0.3 ? Math.floor(rand() * 12) : -1;
        const seen = machines
          .map((m) => (m.rack === storm ? { ...m, state: "UNREACHABLE" as const, durationSeconds: rand() * 100 } : m))
          .filter((m) => (m.state === "UNHEALTHY" || m.state === "UNREACHABLE") && m.role !== "boot");
        const decision = decideIntake({ machines: seen, entries, nodes, constraints });
        const context = `seed ${seed}, round ${round}`;
        if (decision.enqueue.length > 0) assert.equal(decision.shortCircuit, null, context);
        for (const params of decision.enqueue) entries.push({ ...createRepairEntry(params, NOW), index: next++ });
        assert.ok(entries.length <= constraints.maximumRepairQueueEntries, `${context}: ${entries.length} entries > ${constraints.maximumRepairQueueEntries}`);
        assert.equal(new Set(entries.map((e) => e.address)).size, entries.length, `${context}: two entries for one address`);
        for (const e of decision.enqueue) {
          const m = seen.find((x) => x.serial === e.serial);
          assert.ok(m, context);
          const perRack = seen.filter((x) => x.rack === m.rack).length;
          if (constraints.maximumUnhealthyMachinesPerRack > 0)
            assert.ok(perRack <= constraints.maximumUnhealthyMachinesPerRack, `${context}: rack ${m.rack} over its limit`);
        }
        // Operators delete some entries between rounds.
        entries = entries.filter(() => rand() < 0.7);
      }
    }
  });
});
