import { CONSTRAINT_NAMES, setConstraint, type ConstraintName } from "../../domain/shared/constraints.js";
import { variablesText } from "../../domain/sabakan/cke-query-variables.js";
import { apiError } from "../errors.js";
import type { Resolvers } from "../generated/resolvers.js";
import { checkedMachineParams, variablesFromText } from "./machine-params-input.js";

/** The constraints of cluster generation (sizes and the control-plane grace): changing one regenerates the cluster. */

export const settingsResolvers: Resolvers = {
  Query: {
    repairQueueEnabled: (_, __, ctx) => ctx.settings.repairQueueEnabled(),
    autoRepairEnabled: (_, __, ctx) => ctx.settings.autoRepairEnabled(),
    autoRepairVariables: (_, __, ctx) => ({ ...ctx.settings.autoRepairVariables(), text: ctx.settings.autoRepairVariablesText() }),
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
    setAutoRepairVariables: async (_, { having, notHaving, text }, ctx) => {
      const from = text === null || text === undefined ? { having, notHaving } : variablesFromText(text, having, notHaving);
      const variables = { having: checkedMachineParams(from.having, "having"), notHaving: checkedMachineParams(from.notHaving, "notHaving") };
      const stored = text ?? variablesText(variables);
      await ctx.settings.setAutoRepairVariables(variables, stored);
      return { ...variables, text: stored };
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
