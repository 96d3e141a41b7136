import { formatMaxUnhealthy } from "../../domain/health/health-check-config.js";
import { apiError } from "../errors.js";
import type { Resolvers } from "../generated/resolvers.js";

export const healthCheckResolvers: Resolvers = {
  Query: {
    healthChecks: (_, __, ctx) => ctx.leaderWorkers().healthChecks.list(),
  },
  Mutation: {
    setHealthCheckPaused: async (_, { name, paused }, ctx) => {
      const { healthChecks } = ctx.leaderWorkers();
      const status = await healthChecks.setPaused(name, paused);
      if (!status)
        throw apiError(
          "NOT_FOUND",
          `health check ${JSON.stringify(name)} not found; known: ${
            healthChecks
              .list()
              .map((s) => s.check.name)
              .join(", ") || "none"
          }`,
        );
      return status;
    },
  },
  Subscription: {
    healthCheckEvents: {
      subscribe: (_, __, ctx) => ctx.pubsub.subscribe("healthCheckEvents"),
      resolve: (payload: unknown) => payload as never,
    },
  },
  HealthCheck: {
    name: (s) => s.check.name,
    operation: (s) => s.check.operation,
    expectedNodes: (s) => s.evaluation?.expected ?? 0,
    currentHealthy: (s) => s.evaluation?.currentHealthy ?? 0,
    unhealthyCount: (s) => s.evaluation?.unhealthyCount ?? 0,
    remediationsAllowed: (s) => (s.paused ? 0 : (s.evaluation?.gate.remediationsAllowed ?? 0)),
    gateOpen: (s) => !s.paused && (s.evaluation?.gate.open ?? false),
    gateReason: (s) => (s.paused ? "paused" : s.evaluation ? s.evaluation.gate.reason : "not evaluated yet"),
    maxUnhealthy: (s) => formatMaxUnhealthy(s.check.maxUnhealthy),
    unhealthyRange: (s) => (s.check.unhealthyRange ? `[${s.check.unhealthyRange.min}-${s.check.unhealthyRange.max}]` : null),
    targets: (s) => [...(s.evaluation?.targets ?? [])],
    nextCheckAt: (s) => s.evaluation?.nextCheckAt ?? null,
    evaluatedAt: (s) => s.evaluatedAt,
    held: (s) => [...s.held],
  },
  HealthCheckTarget: {
    // The generated ResolversTypes give string-valued enums as null; the value is the enum's internal value.
    state: (t) => t.state as never,
  },
};
