import { clusterYaml } from "../../domain/cluster/cluster-yaml.js";
import { KEPT_GENERATIONS, type ClusterGeneration } from "../../domain/cluster/generation-record.js";
import { describeStrandedWorkers, strandedWorkers } from "../../domain/cluster/stranded-workers.js";
import { parseTemplate } from "../../domain/cluster/template.js";
import type { GeneratedCluster } from "../../domain/cluster/types.js";
import { variablesText } from "../../domain/sabakan/cke-query-variables.js";
import { apiError } from "../errors.js";
import { ClusterGenerationOutcome, type Resolvers } from "../generated/resolvers.js";
import { checkedMachineParams, variablesFromText } from "./machine-params-input.js";

const asList = (record: Readonly<Record<string, string>>) =>
  Object.keys(record)
    .sort()
    .map((name) => ({ name, value: record[name] as string }));

const clusterOf = (g: ClusterGeneration): GeneratedCluster => {
  if (g.cluster === null) throw new Error(`generation record ${g.sequence} has no cluster`);
  return g.cluster;
};

const OUTCOMES = {
  generated: ClusterGenerationOutcome.Generated,
  failed: ClusterGenerationOutcome.Failed,
  recovered: ClusterGenerationOutcome.Unchanged,
} as const;
const outcomeOf = (g: ClusterGeneration) => OUTCOMES[g.outcome];
const NEXT_OUTCOMES = {
  generated: ClusterGenerationOutcome.Generated,
  failed: ClusterGenerationOutcome.Failed,
  unchanged: ClusterGenerationOutcome.Unchanged,
} as const;

/** The generated-cluster view of a record: only records with a cluster are one. */
const generated = (g: ClusterGeneration | null): ClusterGeneration | null => (g !== null && g.outcome === "generated" ? g : null);

export const clusterResolvers: Resolvers = {
  Query: {
    clusterTemplate: (_, __, ctx) => ctx.settings.clusterTemplate(),
    clusterVariables: (_, __, ctx) => ({ ...ctx.settings.clusterVariables(), text: ctx.settings.clusterVariablesText() }),
    clusterGenerationEnabled: (_, __, ctx) => ctx.settings.clusterGenerationEnabled(),
    generatedCluster: (_, { generation }, ctx) =>
      generation === null || generation === undefined ? ctx.generations.current() : ctx.generations.generation(generation),
    clusterGenerations: (_, { last }, ctx) => {
      if (last !== null && last !== undefined && last < 0) throw apiError("INVALID_ARGUMENT", `last must be >= 0, got ${last}`);
      return ctx.generations.last(last === null || last === undefined ? null : Math.min(last, KEPT_GENERATIONS));
    },
  },
  Mutation: {
    setClusterTemplate: async (_, { template }, ctx) => {
      const parsed = parseTemplate(template);
      if (!parsed.ok) throw apiError("INVALID_CLUSTER_TEMPLATE", `invalid cluster template: ${parsed.errors.join("; ")}`);
      const stranded = strandedWorkers(parsed.template, ctx.generations.current()?.cluster ?? null);
      if (stranded.length > 0) {
        throw apiError("INVALID_CLUSTER_TEMPLATE", `cluster template not set: in the configuration in force, ${describeStrandedWorkers(stranded)}`);
      }
      // setAt tells templates apart (a configuration records the one it was made from, as CKE stores the template's
      // revision with the cluster): it never repeats, even for two templates set in one millisecond.
      const previous = ctx.settings.clusterTemplate()?.setAt ?? -Infinity;
      const stored = { text: template, setAt: Math.max(ctx.now(), previous + 1) };
      // The leader's cluster generation hears of the commit and runs a round (see wiring/leader-term.ts).
      await ctx.settings.setClusterTemplate(stored);
      return stored;
    },
    setClusterVariables: async (_, { having, notHaving, text }, ctx) => {
      const from = text === null || text === undefined ? { having, notHaving } : variablesFromText(text, having, notHaving);
      const variables = { having: checkedMachineParams(from.having, "having"), notHaving: checkedMachineParams(from.notHaving, "notHaving") };
      const stored = text ?? variablesText(variables);
      await ctx.settings.setClusterVariables(variables, stored);
      return { ...variables, text: stored };
    },
    setClusterGenerationEnabled: async (_, { enabled }, ctx) => {
      await ctx.settings.setClusterGenerationEnabled(enabled);
      return enabled;
    },
    runClusterGeneration: async (_, __, ctx) => {
      const round = await ctx.leaderWorkers().clusterGenerator.runNow();
      switch (round.kind) {
        case "skipped":
          throw apiError("CLUSTER_GENERATION_UNAVAILABLE", round.reason);
        case "unchanged":
          return { outcome: ClusterGenerationOutcome.Unchanged, record: round.recovery, cluster: generated(round.current) };
        case "recorded":
          return {
            outcome: outcomeOf(round.record),
            record: round.record,
            cluster: generated(ctx.generations.current()),
          };
      }
    },
    adoptCluster: async (_, { cluster }, ctx) => {
      const outcome = await ctx.leaderWorkers().clusterGenerator.adopt(cluster);
      if (outcome.kind === "refused") throw apiError("CLUSTER_ADOPTION_REFUSED", `cluster configuration not adopted: ${outcome.errors.join("; ")}`);
      const { adoption, record } = outcome;
      return {
        cluster: record,
        suggestedWorkerSelection: adoption.suggested as never,
        suggestion: adoption.suggestion,
        nextRounds: adoption.nextRounds.map((r) => ({
          workerSelection: r.workerSelection as never,
          outcome: NEXT_OUTCOMES[r.outcome],
          details: [...r.details],
        })),
      };
    },
  },
  Subscription: {
    clusterGenerated: {
      subscribe: (_, __, ctx) => ctx.pubsub.subscribe("clusterGenerated"),
      resolve: (payload: unknown) => payload as never,
    },
  },
  ClusterTemplate: {
    template: (t) => t.text,
    setAt: (t) => t.setAt,
    name: (t) => {
      const parsed = parseTemplate(t.text);
      return parsed.ok ? parsed.template.name : "";
    },
  },
  GeneratedCluster: {
    generation: (g) => g.generation,
    yaml: (g) => clusterYaml(clusterOf(g)),
    nodes: (g) => [...clusterOf(g).nodes],
    changes: (g) => [...g.changes],
    generatedAt: (g) => g.time,
    trigger: (g) => g.trigger as never,
    policy: (g) => g.policy as never,
  },
  ClusterGeneration: {
    sequence: (g) => String(g.sequence),
    outcome: outcomeOf,
    trigger: (g) => g.trigger as never,
    policy: (g) => g.policy as never,
    changes: (g) => [...g.changes],
    cluster: (g) => generated(g),
  },
  ClusterNode: {
    controlPlane: (n) => n.control_plane,
    labels: (n) => asList(n.labels),
    annotations: (n) => asList(n.annotations),
  },
  Taint: {
    value: (t) => t.value ?? null,
  },
};
