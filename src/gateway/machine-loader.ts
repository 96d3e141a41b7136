import { GraphQLError, type GraphQLResolveInfo } from "graphql";
import { parseAddress } from "../domain/shared/address.js";
import { EventFleets } from "./event-fleets.js";
import { joinSelection } from "./join-selection.js";
import { printTree, type SelectionTree } from "./selection-tree.js";
import { ask, ForwardedSabakanError, type SabakanAsker } from "./sabakan-forwarder.js";

type Machine = { spec?: { ipv4?: string[] } } & Record<string, unknown>;

/** Machines by first IPv4. */
export type Fleet = ReadonlyMap<string, Machine>;

/**
 * Looks machines up by address for `RepairEntry.machine`, one loader per request. sabakan cannot search by address,
 * so the first lookup of an execution makes ONE `searchMachines` of the whole fleet, with the selection of every
 * `RepairEntry.machine` in the operation (see joinSelection), and every later lookup of that execution, at any
 * depth, is answered from it. A query's execution has no root value and its search is this request's. A
 * subscription's event is its root value (the payload pubsub hands every subscriber), and its search is shared by
 * every subscription through `events` (see EventFleets): one search per event, however many subscribe, and an
 * event never sees the fleet as it was at an earlier one.
 */
export class MachineByAddressLoader {
  private withoutRoot: Promise<Fleet> | null = null;

  constructor(
    private readonly client: SabakanAsker,
    private readonly events: EventFleets<Fleet> = fleetsOfEvents(client),
  ) {}

  async load(address: string, info: GraphQLResolveInfo): Promise<Machine | null> {
    const fleet = await this.fleetFor(info);
    return fleet.get(address) ?? null;
  }

  private fleetFor(info: GraphQLResolveInfo): Promise<Fleet> {
    const root: unknown = info.rootValue;
    if (typeof root === "object" && root !== null) return this.events.fleetFor(root, joinSelection(info));
    if (!this.withoutRoot) {
      this.withoutRoot = searchFleet(this.client, joinSelection(info));
      // A rejection is shared by every lookup of the execution; handled here so none of them is "unhandled" first.
      this.withoutRoot.catch(() => undefined);
    }
    return this.withoutRoot;
  }
}

/** The server-wide searches of subscription events, to share between the loaders of every request. */
export function fleetsOfEvents(client: SabakanAsker): EventFleets<Fleet> {
  return new EventFleets((tree) => searchFleet(client, tree));
}

async function searchFleet(client: SabakanAsker, tree: SelectionTree): Promise<Fleet> {
  try {
    const answer = await ask(client, `query { searchMachines ${printTree(tree)} }`, {});
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
