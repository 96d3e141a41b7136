import { GraphQLError, type GraphQLResolveInfo } from "graphql";
import type { SabakanGatewayClient } from "../adapters/sabakan-gateway-client.js";
import { parseAddress } from "../domain/address.js";
import { joinSelection } from "./join-selection.js";
import { printTree } from "./selection-tree.js";
import { ask, ForwardedSabakanError } from "./sabakan-forwarder.js";

type Machine = { spec?: { ipv4?: string[] } } & Record<string, unknown>;

/** One execution's machines by first IPv4, or the error every lookup of that execution answers with. */
type Fleet = Promise<ReadonlyMap<string, Machine>>;

/**
 * Looks machines up by address for `RepairEntry.machine`, one loader per request. sabakan cannot search by address,
 * so the first lookup of an execution makes ONE `searchMachines` of the whole fleet, with the selection of every
 * `RepairEntry.machine` in the operation (see joinSelection), and every later lookup of that execution, at any
 * depth, is answered from it. An execution is told apart by its root value: a query's is the same throughout, and
 * each event of a subscription (which keeps its context for its lifetime) has its own, so an event never sees the
 * fleet as it was at an earlier one.
 */
export class MachineByAddressLoader {
  private readonly byRoot = new WeakMap<object, Fleet>();
  private withoutRoot: Fleet | null = null;

  constructor(private readonly client: SabakanGatewayClient) {}

  async load(address: string, info: GraphQLResolveInfo): Promise<Machine | null> {
    const fleet = await this.fleetFor(info);
    return fleet.get(address) ?? null;
  }

  private fleetFor(info: GraphQLResolveInfo): Fleet {
    const root: unknown = info.rootValue;
    const keyed = typeof root === "object" && root !== null;
    let fleet = keyed ? this.byRoot.get(root) : this.withoutRoot;
    if (!fleet) {
      fleet = this.search(info);
      // A rejection is shared by every lookup of the execution; handled here so none of them is "unhandled" first.
      fleet.catch(() => undefined);
      if (keyed) this.byRoot.set(root, fleet);
      else this.withoutRoot = fleet;
    }
    return fleet;
  }

  private async search(info: GraphQLResolveInfo): Fleet {
    try {
      const answer = await ask(this.client, `query { searchMachines ${printTree(joinSelection(info))} }`, {});
      const [first] = answer.errors;
      if (first && !answer.data) throw new ForwardedSabakanError(first);
      const byAddress = new Map<string, Machine>();
      for (const machine of (answer.data?.["searchMachines"] ?? []) as Machine[]) {
        const ip = machine.spec?.ipv4?.[0];
        const parsed = ip === undefined ? null : parseAddress(ip);
        if (parsed?.ok && !byAddress.has(parsed.address)) byAddress.set(parsed.address, machine);
      }
      return byAddress;
    } catch (err) {
      throw err instanceof GraphQLError ? err : new GraphQLError((err as Error).message);
    }
  }
}
