import type { MachineSource } from "../adapters/ports.js";
import { canonicalAddresses } from "../domain/shared/address.js";
import type { MachineQueryVariables } from "../domain/sabakan/machine-params.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";

/** Machines remembered at most; beyond it the longest-unseen are forgotten (a data center has far fewer). */
export const MAX_REMEMBERED_MACHINES = 50_000;

/**
 * The rack of each machine address, as sabakan last said in any answer kintsugi got (the sabakan trigger's polls,
 * cluster generation, health checks). It asks sabakan nothing itself: pacing by rack reads it on every pass.
 */
export class RackDirectory {
  private readonly racks = new Map<string, number>();

  /** Remembers the racks of `machines` (each of their IPv4 addresses, canonical). */
  learn(machines: readonly SabakanMachine[]): void {
    for (const m of machines) {
      for (const address of canonicalAddresses(m.ipv4)) {
        // Delete first so the map's order is least recently seen first.
        this.racks.delete(address);
        this.racks.set(address, m.rack);
      }
    }
    for (const oldest of this.racks.keys()) {
      if (this.racks.size <= MAX_REMEMBERED_MACHINES) break;
      this.racks.delete(oldest);
    }
  }

  /** The rack of `address`, or null when sabakan never named it. */
  rackOf(address: string): number | null {
    return this.racks.get(address) ?? null;
  }

  /** `source` with every answer it gives remembered here. */
  recording(source: MachineSource): MachineSource {
    return {
      searchMachines: async (variables: MachineQueryVariables) => {
        const machines = await source.searchMachines(variables);
        this.learn(machines);
        return machines;
      },
    };
  }
}
