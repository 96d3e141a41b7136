import type { Resolvers } from "../generated/resolvers.js";

/** sabakan's and Kubernetes' status as this replica's calls saw them, and each change of side as it happens. */
export const dependencyResolvers: Resolvers = {
  Query: {
    dependencies: (_, __, ctx) => [...ctx.dependencies()],
  },
  Subscription: {
    dependencyEvents: {
      subscribe: (_, __, ctx) => ctx.pubsub.subscribe("dependencyEvents"),
      resolve: (payload: unknown) => payload as never,
    },
  },
  Dependency: {
    // Up once a call worked and none failed since; before any call, not known to be up.
    up: (status) => status.downSince === null && status.lastWorkedAt !== null,
    lastFailed: (status) => status.lastFailedAt,
    lastWorked: (status) => status.lastWorkedAt,
  },
};
