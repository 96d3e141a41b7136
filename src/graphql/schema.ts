import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { makeExecutableSchema } from "./apollo-server.js";
import type { GraphQLSchema } from "graphql";
import { autoRepairResolvers } from "./resolvers/auto-repair-resolvers.js";
import { clusterResolvers } from "./resolvers/cluster-resolvers.js";
import { dependencyResolvers } from "./resolvers/dependency-resolvers.js";
import { gatewayResolvers } from "./resolvers/gateway-resolvers.js";
import { healthCheckResolvers } from "./resolvers/health-check-resolvers.js";
import { machineHoldResolvers } from "./resolvers/machine-hold-resolvers.js";
import { SKIP_KIND_VALUES } from "./skip-kind-values.js";
import { replayResolvers } from "./resolvers/replay-resolvers.js";
import { repairStatsResolvers } from "./resolvers/repair-stats-resolvers.js";
import { repairEntryResolvers } from "./resolvers/repair-entry-resolvers.js";
import { settingsResolvers } from "./resolvers/settings-resolvers.js";
import { DateTimeScalar, IPAddressScalar } from "./scalars.js";
import type { Resolvers } from "./generated/resolvers.js";
import { chargeLongAnswers } from "./limits/answer-budget.js";

/** The schema files, in the package's `schema/` folder (two levels above both src/graphql and dist/graphql). */
export const SCHEMA_FILES = [
  "sabakan.graphql",
  "kintsugi.graphql",
  "gateway.graphql",
  "health-checks.graphql",
  "cluster.graphql",
  "machine-holds.graphql",
  "repair-stats.graphql",
  "replay.graphql",
].map((name) => fileURLToPath(new URL(`../../schema/${name}`, import.meta.url)));

/** The SDL of kintsugi's API: sabakan's reused types followed by kintsugi's own. */
export function schemaSDL(): string {
  return SCHEMA_FILES.map((f) => readFileSync(f, "utf8")).join("\n");
}

const enums: Resolvers = {
  RepairStatus: { QUEUED: "queued", PROCESSING: "processing", SUCCEEDED: "succeeded", FAILED: "failed" },
  RepairStepStatus: { WAITING: "waiting", DRAINING: "draining", WATCHING: "watching" },
  HealthCheckTargetState: { HEALTHY: "healthy", PENDING: "pending", UNHEALTHY: "unhealthy" },
  ClusterGenerationTrigger: { SCHEDULE: "schedule", TEMPLATE: "template", SETTINGS: "settings", EVENT: "event", OPERATOR: "operator", ADOPT: "adopt" },
  ClusterWorkerSelection: { WEIGHTED: "weighted", ALL_HEALTHY: "all_healthy" },
  SkipKind: SKIP_KIND_VALUES,
  PacingDomainKind: { RACK: "rack", MACHINE_TYPE: "machine_type" },
  MachineHoldSource: { API: "api", ANNOTATION: "annotation" },
  MachineHoldEventKind: { SET: "set", RELEASED: "released", EXPIRED: "expired" },
  RepairHistoryKind: {
    CREATED: "created",
    TRANSITION: "transition",
    DELETE_REQUESTED: "delete-requested",
    DEQUEUED: "dequeued",
    BACKOFF_RESET: "backoff-reset",
    NOTE: "note",
  },
};

let built: GraphQLSchema | undefined;

/**
 * The executable schema: SDL plus resolvers, which the generated types check against the SDL; its long lists and
 * joins charge an HTTP request's answer budget as they resolve. It depends on the code only (what a request needs
 * comes in its context), so it is built once a process: a process that starts several servers (the tests) shares it.
 */
export function buildSchema(): GraphQLSchema {
  built ??= executableSchema();
  return built;
}

function executableSchema(): GraphQLSchema {
  const schema = makeExecutableSchema({
    typeDefs: schemaSDL(),
    resolvers: [
      { DateTime: DateTimeScalar, IPAddress: IPAddressScalar },
      enums,
      repairEntryResolvers,
      settingsResolvers,
      autoRepairResolvers,
      gatewayResolvers,
      healthCheckResolvers,
      clusterResolvers,
      machineHoldResolvers,
      repairStatsResolvers,
      replayResolvers,
      dependencyResolvers,
    ],
    resolverValidationOptions: { requireResolversToMatchSchema: "error" },
  });
  return chargeLongAnswers(schema);
}
