import { replayAutoRepair, type ReplayLimits } from "../../domain/auto-repair-replay.js";
import { boundReplay, checkReplayRequest, REPLAY_BOUNDS } from "../../domain/replay-request.js";
import { apiError } from "../errors.js";
import type { Resolvers } from "../generated/resolvers.js";

/** simulateAutoRepair: reads the poll records (never the live queue) and replays them with the caller's limits. */
export const replayResolvers: Resolvers = {
  MachineFate: {
    ENQUEUED: "enqueued",
    RACK_LIMIT: "rack_limit",
    QUEUE_LIMIT: "queue_limit",
    REBOOTING: "rebooting",
    OUT_OF_CLUSTER: "out_of_cluster",
    RECENTLY_REPAIRED: "recently_repaired",
    NO_ADDRESS: "no_address",
    INVALID_ADDRESS: "invalid_address",
    DUPLICATE_ADDRESS: "duplicate_address",
    HELD: "held",
    ESCALATED: "escalated",
  },
  Query: {
    simulateAutoRepair: async (_, { since, constraints, repairSeconds }, ctx) => {
      const checked = checkReplayRequest({ since, constraints: constraints ?? {}, repairSeconds: repairSeconds ?? null }, ctx.now());
      if (!checked.ok) throw apiError("INVALID_ARGUMENT", checked.message);
      const read = await ctx.pollRecords.since(since, REPLAY_BOUNDS.maxPolls + 1);
      const bounded = boundReplay(read.records);
      if (!bounded.ok) throw apiError("INVALID_ARGUMENT", bounded.message);
      const limits: ReplayLimits = checked.limits;
      const report = replayAutoRepair(bounded.records, limits);
      return {
        ...report,
        polls: report.polls.slice(0, REPLAY_BOUNDS.maxDifferingPolls),
        unreadableRecords: read.unreadable,
        truncated: bounded.truncated || report.polls.length > REPLAY_BOUNDS.maxDifferingPolls,
      };
    },
  },
};
