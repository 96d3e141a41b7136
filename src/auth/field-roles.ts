import type { Role } from "./roles.js";

/**
 * The role every root field of the API needs, in one place. test/auth/field-roles.test.ts checks this table against
 * the schema (a root field missing here fails the tests), and the HTTP server refuses to start on a schema with a
 * root field the table does not name. Reading is for viewers; working the repair queue and the switches of
 * day-to-day operation is for operators; what shapes the policy (constraints, what auto-repair and cluster
 * generation select, the cluster template, turning generation on or off) is for admins.
 */
export const FIELD_ROLES: Readonly<Record<"Query" | "Mutation" | "Subscription", Readonly<Record<string, Role>>>> = {
  Query: {
    repairEntry: "viewer",
    searchRepairEntries: "viewer",
    repairHistory: "viewer",
    repairQueueEnabled: "viewer",
    autoRepairEnabled: "viewer",
    autoRepairVariables: "viewer",
    constraints: "viewer",
    repairPacing: "viewer",
    autoRepairOutcomes: "viewer",
    machine: "viewer",
    searchMachines: "viewer",
    machineStateCounts: "viewer",
    healthChecks: "viewer",
    clusterTemplate: "viewer",
    clusterVariables: "viewer",
    clusterGenerationEnabled: "viewer",
    generatedCluster: "viewer",
    clusterGenerations: "viewer",
    machineHolds: "viewer",
    simulateAutoRepair: "viewer",
    repairStats: "viewer",
    machineRepairs: "viewer",
    frequentlyRepaired: "viewer",
    finishedRepairs: "viewer",
    dependencies: "viewer",
  },
  Mutation: {
    addRepairEntry: "operator",
    deleteRepairEntry: "operator",
    deleteFinishedRepairEntries: "operator",
    deleteUnfinishedRepairEntries: "operator",
    setRepairQueueEnabled: "operator",
    resetRepairBackoff: "operator",
    setAutoRepairEnabled: "operator",
    runAutoRepair: "operator",
    setHealthCheckPaused: "operator",
    setMachineState: "operator",
    // A round with the template and variables in force, as the schedule would run it.
    runClusterGeneration: "operator",
    holdMachine: "operator",
    releaseMachine: "operator",
    setAutoRepairVariables: "admin",
    setConstraint: "admin",
    setClusterTemplate: "admin",
    adoptCluster: "admin",
    importRepairEntries: "admin",
    setClusterVariables: "admin",
    setClusterGenerationEnabled: "admin",
  },
  Subscription: {
    repairEntryEvents: "viewer",
    machineStateChanged: "viewer",
    autoRepairOutcomes: "viewer",
    healthCheckEvents: "viewer",
    clusterGenerated: "viewer",
    machineHoldEvents: "viewer",
    repairWaits: "viewer",
    dependencyEvents: "viewer",
  },
};
