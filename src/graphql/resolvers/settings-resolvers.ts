import { CONSTRAINT_NAMES, setConstraint, type ConstraintName } from "../../domain/constraints.js";
import { checkMachineParams, type MachineParams } from "../../domain/machine-params.js";
import { apiError } from "../errors.js";
import type { Resolvers } from "../generated/resolvers.js";

/** Checks a MachineParams and drops its null fields (GraphQL fills them from the `= null` defaults). */
function checked(params: MachineParams | null | undefined, path: string): MachineParams | null {
  const result = checkMachineParams(params, path);
  if (!result.ok) throw apiError("INVALID_MACHINE_PARAMS", result.message);
  if (!params) return null;
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== null && v !== undefined)) as MachineParams;
}

export const settingsResolvers: Resolvers = {
  Query: {
    repairQueueEnabled: (_, __, ctx) => ctx.settings.repairQueueEnabled(),
    autoRepairEnabled: (_, __, ctx) => ctx.settings.autoRepairEnabled(),
    autoRepairVariables: (_, __, ctx) => ctx.settings.autoRepairVariables(),
    constraints: (_, __, ctx) => ctx.settings.constraints(),
  },
  Mutation: {
    setRepairQueueEnabled: (_, { enabled }, ctx) => {
      ctx.settings.setRepairQueueEnabled(enabled);
      ctx.committed([]);
      return enabled;
    },
    setAutoRepairEnabled: (_, { enabled }, ctx) => {
      ctx.settings.setAutoRepairEnabled(enabled);
      return enabled;
    },
    setAutoRepairVariables: (_, { having, notHaving }, ctx) => {
      const variables = { having: checked(having, "having"), notHaving: checked(notHaving, "notHaving") };
      ctx.settings.setAutoRepairVariables(variables);
      return variables;
    },
    setConstraint: (_, { name, value }, ctx) => {
      const result = setConstraint(ctx.settings.constraints(), name, value);
      if (!result.ok) throw apiError("INVALID_CONSTRAINT", result.message);
      // Only the value the operator set is stored, so the config file still supplies the others.
      ctx.settings.setConstraints({ [CONSTRAINT_NAMES[name as ConstraintName]]: value });
      return result.constraints;
    },
  },
};
