import { GraphQLError, getNamedType, isObjectType, type GraphQLResolveInfo } from "graphql";
import { SlotsFullError } from "../adapters/fetch-slots.js";
import { SabakanUnavailableError, type SabakanAnswer, type SabakanGraphQLError } from "../adapters/sabakan-gateway-client.js";
import { mergeSelection, printTree, requireField, type SelectionTree } from "./selection-tree.js";

/**
 * Fields of sabakan's types that kintsugi answers itself: never sent to sabakan, but the sabakan fields they are
 * computed from are (Machine.repairEntries matches the machine's first IPv4).
 */
export const LOCAL_FIELDS: ReadonlyMap<string, ReadonlyArray<readonly string[]>> = new Map([["Machine.repairEntries", [["spec", "ipv4"]]]]);

/** sabakan's root fields, with the operation and variable definitions kintsugi forwards them with. */
const ROOTS = {
  machine: { operation: "query", variables: "$serial: ID!", call: "machine(serial: $serial)" },
  searchMachines: {
    operation: "query",
    variables: "$having: MachineParams, $notHaving: MachineParams",
    call: "searchMachines(having: $having, notHaving: $notHaving)",
  },
  setMachineState: { operation: "mutation", variables: "$serial: ID!, $state: MachineState!", call: "setMachineState(serial: $serial, state: $state)" },
} as const;

export type SabakanRootField = keyof typeof ROOTS;

/** An error exactly as sabakan reported it: message and extensions are passed to the client unchanged. */
export class ForwardedSabakanError extends GraphQLError {
  /** sabakan's extensions as it sent them; undefined when it sent none (sabakan's `machine` not-found has none). */
  readonly sabakanExtensions: Record<string, unknown> | undefined;

  constructor(error: SabakanGraphQLError) {
    super(error.message, error.extensions ? { extensions: { ...error.extensions } } : {});
    this.sabakanExtensions = error.extensions ? { ...error.extensions } : undefined;
  }
}

/** The selection under `info`'s field, as sabakan will receive it, with the fields kintsugi needs added. */
export function forwardedTree(info: GraphQLResolveInfo, needed: ReadonlyArray<readonly string[]> = []): SelectionTree {
  const tree: SelectionTree = new Map();
  const type = getNamedType(info.returnType);
  if (isObjectType(type)) {
    for (const node of info.fieldNodes) mergeSelection(tree, type, node.selectionSet, info, LOCAL_FIELDS);
  }
  for (const path of needed) requireField(tree, path);
  return tree;
}

/**
 * Forwards one of sabakan's root fields: the client's selection (fragments inlined, aliases dropped, kintsugi's own
 * fields left out) is sent to sabakan with the field's arguments as variables, and sabakan's value is returned for
 * graphql-js to shape (aliases, kintsugi's join fields). sabakan's errors are thrown as they came.
 */
export async function forwardRoot(client: SabakanAsker, field: SabakanRootField, args: Record<string, unknown>, tree: SelectionTree): Promise<unknown> {
  const root = ROOTS[field];
  const document = `${root.operation} (${root.variables}) { ${root.call} ${printTree(tree)} }`;
  const variables = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
  const answer = await ask(client, document, variables);
  const [first] = answer.errors;
  if (first && (answer.data === null || answer.data[field] === null || answer.data[field] === undefined)) throw new ForwardedSabakanError(first);
  return answer.data?.[field] ?? null;
}

/** What forwards a document to sabakan: the gateway client, or an operation's view of it that asks each query once. */
export interface SabakanAsker {
  execute(document: string, variables: Record<string, unknown>): Promise<SabakanAnswer>;
}

/**
 * Asks sabakan, turning "could not ask" into a GraphQL error with the type SABAKAN_UNAVAILABLE, and "too many fetches
 * at once" into LIMIT_EXCEEDED naming sabakan.max_concurrent_requests.
 */
export async function ask(client: SabakanAsker, document: string, variables: Record<string, unknown>): Promise<SabakanAnswer> {
  try {
    return await client.execute(document, variables);
  } catch (err) {
    if (err instanceof SabakanUnavailableError)
      throw new GraphQLError(err.message, { extensions: { type: "SABAKAN_UNAVAILABLE", code: "SERVICE_UNAVAILABLE" } });
    if (err instanceof SlotsFullError) {
      throw new GraphQLError(`sabakan is busy: ${err.message}`, {
        extensions: { type: "LIMIT_EXCEEDED", code: "SERVICE_UNAVAILABLE", limit: "sabakan.max_concurrent_requests" },
      });
    }
    throw err;
  }
}
