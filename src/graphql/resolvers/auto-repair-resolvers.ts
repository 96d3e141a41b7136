import { KEPT_OUTCOMES } from "../../domain/intake/auto-repair-outcome.js";
import { isDeferred } from "../../domain/intake/skip-kinds.js";
import { boundSkipped, skippedCountsOf } from "../../domain/intake/skipped-bound.js";
import { apiError } from "../errors.js";
import type { Resolvers } from "../generated/resolvers.js";

export const autoRepairResolvers: Resolvers = {
  Query: {
    autoRepairOutcomes: (_, { last }, ctx) => {
      if (last !== null && last !== undefined && last < 0) throw apiError("INVALID_ARGUMENT", `last must be >= 0, got ${last}`);
      return ctx.outcomes.last(last === null || last === undefined ? null : Math.min(last, KEPT_OUTCOMES));
    },
  },
  Mutation: {
    runAutoRepair: (_, __, ctx) => ctx.leaderWorkers().autoRepair.runNow(),
  },
  AutoRepairOutcome: {
    sequence: (o) => String(o.sequence),
    skipped: (o, { first }) => {
      if (first === null || first === undefined) return [...o.skipped];
      if (first < 0) throw apiError("INVALID_ARGUMENT", `first must be >= 0, got ${first}`);
      return boundSkipped(o.skipped, first).skipped;
    },
    skippedTotal: (o) => skippedCountsOf(o).total,
    skippedByKind: (o) => [...skippedCountsOf(o).byKind],
  },
  SkippedMachine: {
    held: (s) => isDeferred(s.kind),
  },
};
