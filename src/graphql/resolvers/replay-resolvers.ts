import { replayAutoRepair, type ReplayLimits } from "../../domain/auto-repair-replay.js";
import { recordedPlaces } from "../../domain/poll-record.js";
import { pacingSeedOf } from "../../domain/replay-repair-schedule.js";
import { healthCheckSource } from "../../domain/health-check-remediation.js";
import { boundReplay, checkReplayRequest, REPLAY_BOUNDS } from "../../domain/replay-request.js";
import { apiError } from "../errors.js";
import { SKIP_KIND_VALUES } from "../skip-kind-values.js";
import type { Resolvers } from "../generated/resolvers.js";

/** simulateAutoRepair: reads the poll records (never the live queue) and replays them with the caller's limits. */
export const replayResolvers: Resolvers = {
  MachineFate: { ENQUEUED: "enqueued", ...SKIP_KIND_VALUES },
  TargetFate: {
    ENQUEUED: "enqueued",
    SHORT_CIRCUITED: "short_circuited",
    QUEUE_LIMIT: "queue_limit",
    RECENTLY_REPAIRED: "recently_repaired",
    HELD: "held",
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
      const request = { since, constraints: constraints ?? {}, repairSeconds: repairSeconds ?? null, healthChecks: healthChecks ?? null, pacing: pacing ?? null };
      const checked = checkReplayRequest(request, ctx.now(), { checks: configured.map((c) => c.name), runner });
      if (!checked.ok) throw apiError("INVALID_ARGUMENT", checked.message);
      const polls = await ctx.pollRecords.since(since, REPLAY_BOUNDS.maxPolls + 1);
      const remediations = await ctx.pollRecords.remediations(since, REPLAY_BOUNDS.maxPolls + 1);
      const bounded = boundReplay({ polls: polls.records, remediations: remediations.records });
      if (!bounded.ok) throw apiError("INVALID_ARGUMENT", bounded.message);
      const racks = new Map<string, number>();
      for (const record of bounded.records.polls) for (const [address, place] of recordedPlaces(record)) racks.set(address, place.rack);
      const seeded = checked.limits.runner && { ...checked.limits.runner, seed: pacingSeedOf(ctx.finished.list(), since, racks) };
      const limits: ReplayLimits = { ...checked.limits, ...(seeded && { runner: seeded }) };
      const report = replayAutoRepair(bounded.records, limits, { checks: new Map(configured.map((c) => [c.name, c])), repair: ctx.config.repair });
      return {
        ...report,
        polls: report.polls.slice(0, REPLAY_BOUNDS.maxDifferingPolls),
        unreadableRecords: polls.unreadable + remediations.unreadable,
        truncated: bounded.truncated || report.scheduleExhausted || report.polls.length > REPLAY_BOUNDS.maxDifferingPolls,
      };
    },
  },
};
