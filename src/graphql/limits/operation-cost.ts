import { GraphQLError, getNullableType, isListType, validate, type DocumentNode, type GraphQLSchema } from "graphql";
import { createComplexityRule, type ComplexityEstimatorArgs } from "graphql-query-complexity";

/** What a list is assumed to hold when its length is not known before it runs. */
export const ASSUMED_LIST_LENGTH = 10;

/** The weight of a field that asks sabakan: one round trip that may carry the whole fleet. */
export const SABAKAN_FETCH_COST = 100;

/**
 * The fields that make kintsugi ask sabakan. `RepairEntry.machine` is a join: the whole fleet is searched for the
 * entry's address (once per request, however often the join recurs), so it weighs what a search weighs.
 */
const SABAKAN_FIELDS: ReadonlySet<string> = new Set(["Query.machine", "Query.searchMachines", "Mutation.setMachineState", "RepairEntry.machine"]);

/**
 * A field costs 1 plus what is selected under it; a list multiplies that by its assumed length, so nesting a join
 * inside a list (`searchRepairEntries { machine { repairEntries { machine ...` ) grows the cost tenfold per level;
 * a field that asks sabakan adds SABAKAN_FETCH_COST.
 */
export function estimateFieldCost({ type, field, childComplexity }: ComplexityEstimatorArgs): number {
  let cost = 1 + childComplexity;
  if (isListType(getNullableType(field.type))) cost *= ASSUMED_LIST_LENGTH;
  if (SABAKAN_FIELDS.has(`${type.name}.${field.name}`)) cost += SABAKAN_FETCH_COST;
  return cost;
}

/** An estimate, or `tooLarge` when the operation expands (fragments inlined) to more fields than `maxNodes`. */
export type CostEstimate = { readonly cost: number } | { readonly tooLarge: true };

/**
 * The estimated cost of the operation a request runs (graphql-query-complexity with {@link estimateFieldCost}),
 * with its variables applied to `@skip`/`@include`. A field whose arguments or variables do not coerce is not
 * counted: it will not run either (graphql-js refuses it before it resolves anything below it).
 */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown> | undefined, maxNodes: number): CostEstimate {
  // graphql-query-complexity reads the name of every operation when one is asked for; an unnamed one would throw.
  const named = document.definitions.some((d) => d.kind === "OperationDefinition" && d.name?.value === operationName);
  if (operationName !== undefined && !named) return { cost: 0 };
  let cost = 0;
  const rule = createComplexityRule({
    maximumComplexity: Number.MAX_SAFE_INTEGER,
    estimators: [estimateFieldCost],
    ...(operationName !== undefined && { operationName }),
    ...(variables !== undefined && { variables }),
    maxQueryNodes: maxNodes,
    onComplete: (complexity: number) => {
      cost += complexity;
    },
  });
  try {
    validate(schema, document, [rule]);
  } catch (err) {
    // The only error it throws rather than reports: more nodes than maxQueryNodes.
    if (err instanceof GraphQLError && /maximum allowed number of nodes/.test(err.message)) return { tooLarge: true };
    throw err;
  }
  return { cost };
}
