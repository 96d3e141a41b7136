import { CONSTRAINT_NAMES, setConstraint, type ConstraintName } from "../../domain/constraints.js";
import { apiError } from "../errors.js";
import type { Resolvers } from "../generated/resolvers.js";
import { checkedMachineParams } from "./machine-params-input.js";

/** The constraints of cluster generation (sizes and the control-plane grace): changing one regenerates the cluster. */

export const settingsResolvers: Resolvers = {
  Query: {
    repairQueueEnabled: (_, __, ctx) => ctx.settings.repairQueueEnabled(),
    autoRepairEnabled: (_, __, ctx) => ctx.settings.autoRepairEnabled(),
    autoRepairVariables: (_, __, ctx) => ctx.settings.autoRepairVariables(),
    constraints: (_, __, ctx) => ctx.settings.constraints(),
    repairPacing: (_, __, ctx) => {
      const paceBy = ctx.config.repair.pacing?.domains ?? [];
      return { enabled: paceBy.length > 0, paceBy, domains: ctx.repairPacing() ?? [] };
    },
  },
  Mutation: {
    setRepairQueueEnabled: async (_, { enabled }, ctx) => {
      await ctx.settings.setRepairQueueEnabled(enabled);
      return enabled;
    },
    setAutoRepairEnabled: async (_, { enabled }, ctx) => {
      await ctx.settings.setAutoRepairEnabled(enabled);
      return enabled;
    },
    setAutoRepairVariables: async (_, { having, notHaving }, ctx) => {
      const variables = { having: checkedMachineParams(having, "having"), notHaving: checkedMachineParams(notHaving, "notHaving") };
      await ctx.settings.setAutoRepairVariables(variables);
      return variables;
    },
    setConstraint: async (_, { name, value }, ctx) => {
      const result = setConstraint(ctx.settings.constraints(), name, value);
      if (!result.ok) throw apiError("INVALID_CONSTRAINT", result.message);
      // Only the value the operator set is stored, so the config file still supplies the others.
      const key = CONSTRAINT_NAMES[name as ConstraintName];
      await ctx.settings.setConstraints({ [key]: value });
      return result.constraints;
    },
  },
};
