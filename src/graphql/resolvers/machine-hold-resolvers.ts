import { parseAddress } from "../../domain/shared/address.js";
import { activeHolds, validateHoldRequest, type MachineHold } from "../../domain/holds/machine-holds.js";
import { HoldRefusedError } from "../../store/store-port.js";
import type { GraphQLContext } from "../context.js";
import { apiError } from "../errors.js";
import type { Resolvers } from "../generated/resolvers.js";

/**
 * The holds in force at `now`, ordered by address: the stored ones and the annotation holds the leader sees (an
 * annotation hold is keyed by the Node's name as well, for entries that name their machine so; only addresses are listed).
 */
export function holdsInForce(ctx: GraphQLContext, now: number): MachineHold[] {
  const annotated = (ctx.annotationHolds() ?? []).filter((h) => parseAddress(h.address).ok);
  return [...activeHolds(ctx.holds.list(), annotated, now).values()].sort((a, b) => Buffer.compare(Buffer.from(a.address), Buffer.from(b.address)));
}

export const machineHoldResolvers: Resolvers = {
  Query: {
    machineHolds: (_, __, ctx) => holdsInForce(ctx, ctx.now()),
  },
  Mutation: {
    holdMachine: async (_, { address, reason, until }, ctx) => {
      const now = ctx.now();
      const request = { address, reason, setBy: ctx.actor.name, until: until ?? null };
      try {
        const hold = await ctx.holds.hold((stored) => validateHoldRequest(request, stored, now), ctx.actor.name);
        return { ...hold, source: "api" as const };
      } catch (err) {
        if (err instanceof HoldRefusedError) throw apiError("INVALID_HOLD", err.message);
        throw err;
      }
    },
    releaseMachine: async (_, { address }, ctx) => {
      const parsed = parseAddress(address);
      if (!parsed.ok) throw apiError("INVALID_ADDRESS", `address: ${parsed.message}`);
      try {
        // Noted before the release (and only for a machine that has a stored hold), so a release that succeeds is
        // never undone by escalation counting the repairs it was released from at the next poll.
        if (ctx.holds.list().some((h) => h.address === parsed.address)) await ctx.settings.noteRelease(parsed.address, ctx.now());
        const hold = await ctx.holds.release(parsed.address, ctx.actor.name);
        return { ...hold, source: "api" as const };
      } catch (err) {
        if (err instanceof HoldRefusedError) throw apiError("NOT_FOUND", err.message);
        throw err;
      }
    },
  },
  Subscription: {
    machineHoldEvents: {
      subscribe: (_, __, ctx) => ctx.pubsub.subscribe("machineHoldEvents"),
      resolve: (payload: unknown) => payload as never,
    },
  },
  MachineHoldEvent: {
    hold: (change) => ({ ...change.hold, source: "api" as const }),
  },
};
