import type { MachineSource } from "../adapters/ports.js";
import { canonicalAddresses, parseAddress } from "../domain/shared/address.js";
import type { MachineBmc } from "../domain/sabakan/machine-bmc.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";
import { MAX_REMEMBERED_MACHINES } from "./rack-directory.js";

/** How long after asking sabakan for every machine (to find an unknown BMC) kintsugi waits before asking again. */
export const BMC_LOOKUP_INTERVAL_MS = 60_000;

/**
 * The BMC of each machine address, as sabakan last said in any answer kintsugi got (the sabakan trigger's polls,
 * cluster generation, health checks, proof of repair), so repair commands and health checks find the BMC they act
 * on in their environment. sabakan cannot search machines by address, so a machine it never named to kintsugi (an
 * entry added by hand for a healthy machine) is found by asking for every machine, at most once a minute.
 */
export class BmcDirectory {
  private readonly bmcs = new Map<string, MachineBmc | null>();
  private lastLookup = Number.NEGATIVE_INFINITY;

  /** Remembers the BMCs of `machines` under each of their IPv4 addresses (canonical); null: sabakan gave none usable. */
  learn(machines: readonly SabakanMachine[]): void {
    for (const m of machines) {
      for (const address of canonicalAddresses(m.ipv4)) {
        // Delete first so the map's order is least recently seen first.
        this.bmcs.delete(address);
        this.bmcs.set(address, m.bmc ?? null);
      }
    }
    for (const oldest of this.bmcs.keys()) {
      if (this.bmcs.size <= MAX_REMEMBERED_MACHINES) break;
      this.bmcs.delete(oldest);
    }
  }

  /** The BMC of the machine at `address`, or null when sabakan never named the machine or gave no usable BMC address. */
  bmcOf(address: string): MachineBmc | null {
    const parsed = parseAddress(address);
    return parsed.ok ? (this.bmcs.get(parsed.address) ?? null) : null;
  }

  /**
   * Makes sure the BMCs of `addresses` are known: when sabakan never named one of them, asks it for every machine,
   * unless it was asked less than {@link BMC_LOOKUP_INTERVAL_MS} ago. Never rejects: a failed lookup is logged and
   * leaves those machines' commands without a BMC address, as before.
   */
  async lookUp(
    addresses: readonly string[],
    source: MachineSource | null,
    now: number,
    log: (message: string, fields?: Record<string, unknown>) => void,
  ): Promise<void> {
    if (source === null || now - this.lastLookup < BMC_LOOKUP_INTERVAL_MS) return;
    const unknown = canonicalAddresses(addresses).filter((a) => !this.bmcs.has(a));
    if (unknown.length === 0) return;
    this.lastLookup = now;
    try {
      this.learn(await source.searchMachines({ having: null, notHaving: null }));
    } catch (err) {
      log("cannot look up the BMC addresses of machines in the queue", { addresses: unknown.slice(0, 10), err: (err as Error).message });
    }
  }

  /** `source` with every answer it gives remembered here. */
  recording(source: MachineSource): MachineSource {
    return {
      searchMachines: async (variables) => {
        const machines = await source.searchMachines(variables);
        this.learn(machines);
        return machines;
      },
    };
  }
}
