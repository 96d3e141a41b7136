import type { GraphQLResolveInfo } from "graphql";
import { parseAddress } from "../../domain/shared/address.js";
import type { SabakanGatewayClient } from "../../adapters/sabakan-gateway-client.js";
import { forwardedTree, forwardRoot, type SabakanAsker } from "../../gateway/sabakan-forwarder.js";
import type { SabakanObject } from "../../gateway/sabakan-data.js";
import type { GraphQLContext } from "../context.js";
import { apiError } from "../errors.js";
import type { Resolvers } from "../generated/resolvers.js";
import { matchesRepairEntryParams } from "../../domain/queue/repair-entry-params.js";
import { filterParams } from "./repair-entry-resolvers.js";
import { isFinished } from "../../domain/queue/repair-entry.js";
import { rackStateCounts } from "../../domain/sabakan/rack-state-counts.js";
import { holdsInForce } from "./machine-hold-resolvers.js";

function sabakanOf(ctx: GraphQLContext): SabakanGatewayClient {
  if (!ctx.sabakan) throw apiError("SABAKAN_NOT_CONFIGURED", "sabakan is not configured: set sabakan.url in kintsugi's config file");
  return ctx.sabakan;
}

/** The execution's view of sabakan: a query sent twice in one execution is fetched once (see OperationQueries). */
function queriesOf(ctx: GraphQLContext, info: GraphQLResolveInfo): SabakanAsker {
  const client = sabakanOf(ctx);
  return ctx.sabakanQueries?.forExecution(info.rootValue) ?? client;
}

const STATUS_FIELDS = [["state"], ["timestamp"], ["duration"]] as const;

export const gatewayResolvers: Resolvers = {
  Query: {
    machine: async (_, args, ctx, info) => (await forwardRoot(queriesOf(ctx, info), "machine", args, forwardedTree(info))) as SabakanObject,
    searchMachines: async (_, args, ctx, info) => (await forwardRoot(queriesOf(ctx, info), "searchMachines", args, forwardedTree(info))) as SabakanObject[],
    machineStateCounts: async (_, __, ctx) => {
      sabakanOf(ctx);
      const fleet = await ctx.fleetStates!.read();
      const repairing = new Set(
        ctx.entries
          .list()
          .filter((e) => !isFinished(e))
          .map((e) => e.address),
      );
      const held = new Set(holdsInForce(ctx, ctx.now()).map((h) => h.address));
      return rackStateCounts(fleet, repairing, held);
    },
  },
  Mutation: {
    setMachineState: async (_, args, ctx, info) => {
      // state, timestamp and duration are always fetched: subscribers get the full status whatever the client asked.
      const status = (await forwardRoot(sabakanOf(ctx), "setMachineState", args, forwardedTree(info, STATUS_FIELDS))) as SabakanObject;
      ctx.machineStateChanged({ serial: args.serial, state: args.state, status, time: ctx.now() });
      return status;
    },
  },
  Machine: {
    repairEntries: (machine, _, ctx) => {
      const ip = (machine["spec"] as { ipv4?: string[] } | undefined)?.ipv4?.[0];
      const parsed = ip === undefined ? null : parseAddress(ip);
      if (!parsed?.ok) return [];
      return ctx.entries.list().filter((e) => e.address === parsed.address);
    },
  },
  RepairEntry: {
    machine: async (entry, _, ctx, info: GraphQLResolveInfo) => {
      sabakanOf(ctx);
      const machine = await ctx.machines?.load(entry.address, info);
      return (machine ?? null) as SabakanObject | null;
    },
  },
  MachineStateChange: {},
  RepairEntryEvent: {
    // The generated ResolversTypes give string-valued enums as null; the value is the enum's internal value.
    kind: (change) => change.record.kind as never,
  },
  Subscription: {
    repairEntryEvents: {
      subscribe: (_, { having, notHaving }, ctx) => {
        const h = filterParams(having);
        const nh = filterParams(notHaving);
        return ctx.pubsub.subscribe("repairEntryEvents", (change) => matchesRepairEntryParams(change.entry, h, nh));
      },
      resolve: (payload: unknown) => payload as never,
    },
    machineStateChanged: {
      subscribe: (_, __, ctx) => ctx.pubsub.subscribe("machineStateChanged"),
      resolve: (payload: unknown) => payload as never,
    },
    autoRepairOutcomes: {
      subscribe: (_, __, ctx) => ctx.pubsub.subscribe("autoRepairOutcomes"),
      resolve: (payload: unknown) => payload as never,
    },
  },
};
