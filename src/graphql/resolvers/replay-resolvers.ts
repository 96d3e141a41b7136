import { healthCheckSource } from "../../domain/health/health-check-remediation.js";
import { checkReplayRequest, REPLAY_BOUNDS } from "../../domain/replay/replay-request.js";
import { apiError } from "../errors.js";
import { SKIP_KIND_VALUES } from "../skip-kind-values.js";
import { packRecords } from "../replay/packed-records.js";
import type { ReplayWorkerInput } from "../replay/replay-threads.js";
import type { Resolvers } from "../generated/resolvers.js";

/**
 * simulateAutoRepair: reads the poll records (never the live queue) and replays them with the caller's limits, in a
 * worker thread within limits.replay_seconds, one replay at a time (see ReplayThreads).
 */
export const replayResolvers: Resolvers = {
  MachineFate: { ENQUEUED: "enqueued", ...SKIP_KIND_VALUES },
  TargetFate: {
    ENQUEUED: "enqueued",
    SHORT_CIRCUITED: "short_circuited",
    QUEUE_LIMIT: "queue_limit",
    RECENTLY_REPAIRED: "recently_repaired",
    HELD: "held",
    RACK_LIMIT: "rack_limit",
    NO_ADDRESS: "no_address",
    INVALID_ADDRESS: "invalid_address",
    UNKNOWN_TYPE: "unknown_type",
    NO_PROCEDURE: "no_procedure",
    ESCALATED: "escalated",
  },
  ReplayedPoll: {
    source: (p) => (p.source.kind === "sabakan" ? "sabakan" : healthCheckSource(p.source.check)),
    healthCheck: (p) => (p.source.kind === "sabakan" ? null : p.source.check),
  },
  Query: {
    simulateAutoRepair: async (_, { since, constraints, repairSeconds, healthChecks, pacing }, ctx) => {
      const configured = ctx.config.healthChecks;
      const repair = ctx.config.repair;
      const runner = { maxConcurrentRepairs: repair.maxConcurrentRepairs, pacingDomains: repair.pacing?.domains ?? [] };
      const request = {
        since,
        constraints: constraints ?? {},
        repairSeconds: repairSeconds ?? null,
        healthChecks: healthChecks ?? null,
        pacing: pacing ?? null,
      };
      const checked = checkReplayRequest(request, ctx.now(), { checks: configured.map((c) => c.name), runner });
      if (!checked.ok) throw apiError("INVALID_ARGUMENT", checked.message);
      const gather = async (): Promise<ReplayWorkerInput> => {
        const polls = await ctx.pollRecords.stored("intake", since, REPLAY_BOUNDS.maxPolls + 1);
        const remediations = await ctx.pollRecords.stored("health-check", since, REPLAY_BOUNDS.maxPolls + 1);
        const job = { since, limits: checked.limits, config: { checks: new Map(configured.map((c) => [c.name, c])), repair }, finished: ctx.finished.list() };
        return { job, polls: await packRecords(polls), remediations: await packRecords(remediations) };
      };
      const { result, unreadable } = await ctx.replays.run(gather, ctx.clientGone);
      if (!result.ok) throw apiError("INVALID_ARGUMENT", result.message);
      return { ...result.report, unreadableRecords: unreadable };
    },
  },
};
