import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  isCompositeType,
  isInputType,
  isInterfaceType,
  isListType,
  isObjectType,
  typeFromAST,
  valueFromAST,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type GraphQLType,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { FLEET_JOINS, fleetBound, listBound, type CostSizes } from "./list-bounds.js";

/**
 * The cost of a selection: `each` is paid once per item of every list it sits in (the values of the answer);
 * `once` is paid once per operation however many items hold it (the fleet a join fetches or scans).
 */
interface Cost {
  readonly each: number;
  readonly once: number;
}

const FREE: Cost = { each: 0, once: 0 };

/**
 * The estimated cost of the operation a request runs: every field costs 1 plus what is selected under it, a list
 * multiplies that by its real bound (see list-bounds.ts: the fleet for `searchMachines`, `last` for
 * `autoRepairOutcomes`, 1,000 for `skipped`...), and a join adds a whole fleet of its selection once. Variables
 * (with the operation's defaults) apply to arguments and to `@skip`/`@include`. A field the schema does not have
 * costs nothing: graphql-js's validation refuses it before anything runs.
 *
 * Each fragment is costed once per type it is spread on, so a document whose fragments spread each other many
 * times over costs its size to estimate, not its expansion (which its estimate then shows).
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Readonly<Record<string, unknown>> | undefined,
  sizes: CostSizes,
): number {
  const operation = getOperationAST(document, operationName);
  const root = operation ? rootType(schema, operation) : null;
  if (!operation || !root) return 0;
  const walker = new CostWalker(schema, document, withDefaults(schema, operation, variables ?? {}), sizes);
  const cost = walker.selectionCost(root, operation.selectionSet);
  return cost.each + cost.once;
}

function rootType(schema: GraphQLSchema, operation: OperationDefinitionNode): GraphQLCompositeType | null | undefined {
  if (operation.operation === "query") return schema.getQueryType();
  if (operation.operation === "mutation") return schema.getMutationType();
  return schema.getSubscriptionType();
}

/** The request's variables with the operation's default values filled in where the request has none. */
function withDefaults(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const values: Record<string, unknown> = { ...variables };
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (values[name] !== undefined || !definition.defaultValue) continue;
    const type = typeFromAST(schema, definition.type);
    if (type && isInputType(type)) values[name] = valueFromAST(definition.defaultValue, type);
  }
  return values;
}

class CostWalker {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  /** Fragment costs by `name@type`; null while one is being costed (a cycle, which validation refuses, costs nothing). */
  private readonly fragmentCosts = new Map<string, Cost | null>();

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    private readonly variables: Record<string, unknown>,
    private readonly sizes: CostSizes,
  ) {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(definition.name.value, definition);
    }
  }

  selectionCost(type: GraphQLCompositeType, set: SelectionSetNode): Cost {
    let each = 0;
    let once = 0;
    for (const selection of set.selections) {
      if (!this.included(selection)) continue;
      let cost: Cost;
      if (selection.kind === Kind.FIELD) cost = this.fieldCost(type, selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT)
        cost = this.selectionCost(this.narrowed(type, selection.typeCondition?.name.value), selection.selectionSet);
      else cost = this.fragmentCost(type, selection.name.value);
      each += cost.each;
      once += cost.once;
    }
    return { each, once };
  }

  private fragmentCost(type: GraphQLCompositeType, name: string): Cost {
    const key = `${name}@${type.name}`;
    const known = this.fragmentCosts.get(key);
    if (known !== undefined) return known ?? FREE;
    const fragment = this.fragments.get(name);
    if (!fragment) return FREE;
    this.fragmentCosts.set(key, null);
    const cost = this.selectionCost(this.narrowed(type, fragment.typeCondition.name.value), fragment.selectionSet);
    this.fragmentCosts.set(key, cost);
    return cost;
  }

  private fieldCost(type: GraphQLCompositeType, node: FieldNode): Cost {
    const field = this.fieldOf(type, node.name.value);
    if (!field) return FREE;
    const named = getNamedType(field.type);
    const child = isCompositeType(named) && node.selectionSet ? this.selectionCost(named, node.selectionSet) : FREE;
    const coordinate = `${type.name}.${field.name}`;
    let each = 1 + child.each;
    let lists = 0;
    for (let t: GraphQLType = getNullableType(field.type); isListType(t); t = getNullableType(t.ofType)) lists++;
    if (lists > 0) {
      const args = this.argumentsOf(field, node);
      // A list of lists (none in the schema today) weighs its bound at every level.
      for (let i = 0; i < lists; i++) each *= listBound(coordinate, args, this.sizes);
    }
    let once = child.once;
    if (FLEET_JOINS.has(coordinate)) once += fleetBound(this.sizes) * (1 + child.each);
    return { each, once };
  }

  private fieldOf(type: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined {
    if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
    if (type === this.schema.getQueryType()) {
      if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
      if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
    }
    return isObjectType(type) || isInterfaceType(type) ? type.getFields()[name] : undefined;
  }

  /** The type a fragment's selection is costed on: its type condition when the schema has it, else the parent's. */
  private narrowed(type: GraphQLCompositeType, condition: string | undefined): GraphQLCompositeType {
    const named = condition === undefined ? undefined : this.schema.getType(condition);
    return named && isCompositeType(named) ? named : type;
  }

  private argumentsOf(field: GraphQLField<unknown, unknown>, node: FieldNode): Record<string, unknown> {
    const args: Record<string, unknown> = {};
    for (const argument of node.arguments ?? []) {
      const definition = field.args.find((a) => a.name === argument.name.value);
      if (definition) args[definition.name] = valueFromAST(argument.value, definition.type, this.variables);
    }
    return args;
  }

  /** False when `@skip(if: true)` or `@include(if: false)` leaves the selection out. */
  private included(node: SelectionSetNode["selections"][number]): boolean {
    if (!node.directives?.length) return true;
    try {
      if (getDirectiveValues(GraphQLSkipDirective, node, this.variables)?.["if"] === true) return false;
      return getDirectiveValues(GraphQLIncludeDirective, node, this.variables)?.["if"] !== false;
    } catch {
      // A directive whose argument does not coerce: graphql-js refuses the operation before running it.
      return true;
    }
  }
}
