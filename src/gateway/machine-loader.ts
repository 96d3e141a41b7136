import { GraphQLError } from "graphql";
import type { SabakanGatewayClient } from "../adapters/sabakan-gateway-client.js";
import { parseAddress } from "../domain/address.js";
import { printTree, requireField, type SelectionTree } from "./selection-tree.js";
import { ask, ForwardedSabakanError } from "./sabakan-forwarder.js";

type Machine = { spec?: { ipv4?: string[] } } & Record<string, unknown>;

interface Batch {
  readonly tree: SelectionTree;
  readonly waiters: Array<{ address: string; resolve: (m: Machine | null) => void; reject: (e: unknown) => void }>;
}

/**
 * Looks machines up by address for `RepairEntry.machine`, one loader per request. sabakan cannot search by address,
 * so every lookup made in the same tick becomes ONE `searchMachines` of the whole fleet, with the union of the
 * selections asked for plus the addresses, and the answers are matched by first IPv4 (canonical form).
 */
export class MachineByAddressLoader {
  private batch: Batch | null = null;

  constructor(private readonly client: SabakanGatewayClient) {}

  load(address: string, selection: (tree: SelectionTree) => void): Promise<Machine | null> {
    if (!this.batch) {
      const batch: Batch = { tree: new Map(), waiters: [] };
      this.batch = batch;
      setImmediate(() => void this.dispatch(batch));
    }
    selection(this.batch.tree);
    const batch = this.batch;
    return new Promise((resolve, reject) => batch.waiters.push({ address, resolve, reject }));
  }

  private async dispatch(batch: Batch): Promise<void> {
    if (this.batch === batch) this.batch = null;
    requireField(batch.tree, ["spec", "ipv4"]);
    try {
      const answer = await ask(this.client, `query { searchMachines ${printTree(batch.tree)} }`, {});
      const [first] = answer.errors;
      if (first && !answer.data) throw new ForwardedSabakanError(first);
      const byAddress = new Map<string, Machine>();
      for (const machine of (answer.data?.["searchMachines"] ?? []) as Machine[]) {
        const ip = machine.spec?.ipv4?.[0];
        const parsed = ip === undefined ? null : parseAddress(ip);
        if (parsed?.ok && !byAddress.has(parsed.address)) byAddress.set(parsed.address, machine);
      }
      for (const w of batch.waiters) w.resolve(byAddress.get(w.address) ?? null);
    } catch (err) {
      const error = err instanceof GraphQLError ? err : new GraphQLError((err as Error).message);
      for (const w of batch.waiters) w.reject(error);
    }
  }
}
