import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  isCompositeType,
  isEnumType,
  isInterfaceType,
  isLeafType,
  isListType,
  isObjectType,
  Kind,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionSetNode,
} from "graphql";
import { oversizedError } from "./response-size.js";
import { FLEET_JOINS, LONG_LISTS } from "./list-bounds.js";
import { AnswerTurns } from "./answer-turns.js";

/**
 * What one value of each scalar adds to an answer at least, as JSON: short on purpose, so that the estimate stays
 * below the real size and an answer within max_response_bytes is never cut by it. Field names and aliases are
 * counted exactly (a long alias repeated in every item is what a cheap-looking document grows by).
 */
const SCALAR_BYTES: Readonly<Record<string, number>> = { Int: 2, Float: 4, Boolean: 4, String: 4, ID: 4, DateTime: 22, IPAddress: 9 };
const OTHER_SCALAR_BYTES = 4;

/**
 * The bytes one HTTP request's answer may grow to (limits.max_response_bytes), spent while it is built: each long
 * list (and each join) is charged its estimated size as its resolver returns, before graphql-js builds its items,
 * and once the budget is spent every such field fails at once, so an oversized answer stops growing instead of being
 * built whole and measured after. The estimate is a lower bound; the whole answer is still measured before it is
 * serialised (responseSizePlugin).
 */
export class AnswerBudget {
  private spentBytes = 0;
  private over = false;

  constructor(readonly maxBytes: number) {}

  /** Adds `bytes`; throws the oversized error once the total passes the budget (and for every charge after). */
  charge(bytes: number): void {
    this.spentBytes += bytes;
    if (this.spentBytes > this.maxBytes) this.over = true;
    if (this.over) throw oversizedError(this.maxBytes);
  }

  /** The bytes charged so far. */
  get spent(): number {
    return this.spentBytes;
  }

  /** Whether the answer passed the budget while it was built. */
  get exceeded(): boolean {
    return this.over;
  }
}

/** What a resolver's context may carry: a budget for its answer (HTTP requests), or none (subscription events). */
interface BudgetedContext {
  readonly answerBudget?: AnswerBudget;
}

/** Each answer's turns (see answer-turns.ts), by its budget: one per HTTP request. */
const answerTurns = new WeakMap<AnswerBudget, AnswerTurns>();

/** The turns of the answer `budget` is charged for. */
export function turnsOf(budget: AnswerBudget): AnswerTurns {
  let turns = answerTurns.get(budget);
  if (!turns) answerTurns.set(budget, (turns = new AnswerTurns()));
  return turns;
}

/**
 * Charges every long list and join of `schema` to the request's AnswerBudget (see list-bounds.ts for which can be
 * long), and spreads the building of a long list's items over turns of the event loop (AnswerTurns): each such
 * field's resolver is wrapped, once, in place. Fields of a context without a budget run as they were.
 */
export function chargeLongAnswers(schema: GraphQLSchema): GraphQLSchema {
  for (const coordinate of [...LONG_LISTS, ...FLEET_JOINS]) {
    const [typeName = "", fieldName = ""] = coordinate.split(".");
    const type = schema.getType(typeName);
    const field = isObjectType(type) ? type.getFields()[fieldName] : undefined;
    if (!field) continue;
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args, context: BudgetedContext, info) => {
      const budget = context.answerBudget;
      if (!budget) return resolve(source, args, context, info);
      // A budget already spent starts nothing more (no fetch from sabakan, no read of the store).
      budget.charge(0);
      const value: unknown = resolve(source, args, context, info);
      if (value instanceof Promise) return value.then((v: unknown) => charged(budget, v, info));
      return charged(budget, value, info);
    };
  }
  return schema;
}

function charged(budget: AnswerBudget, value: unknown, info: GraphQLResolveInfo): unknown {
  if (value === null || value === undefined) return value;
  const items = Array.isArray(value) ? value.length : 1;
  const bytes = itemBytes(info);
  if (items > 0) budget.charge(items * bytes);
  // An item handed to a later turn is not built once the answer passed its budget (it is refused whole).
  return Array.isArray(value) ? turnsOf(budget).pace(value, bytes, () => budget.charge(0)) : value;
}

const itemSizes = new WeakMap<FieldNode, number>();

/** The estimated JSON bytes of one item of the field `info` resolves, by its selection (kept per field node). */
function itemBytes(info: GraphQLResolveInfo): number {
  const node = info.fieldNodes[0];
  if (!node) return 0;
  let bytes = itemSizes.get(node);
  if (bytes === undefined) {
    const type = getNamedType(info.returnType);
    bytes = isCompositeType(type) ? 0 : (SCALAR_BYTES[type.name] ?? OTHER_SCALAR_BYTES);
    if (isCompositeType(type)) {
      // Fields merged under one response name: the largest selection, which the answer holds at least.
      for (const n of info.fieldNodes) if (n.selectionSet) bytes = Math.max(bytes, setBytes(type, n.selectionSet, info));
    }
    itemSizes.set(node, bytes);
  }
  return bytes;
}

/** The estimated JSON bytes of one object of `type` with the selection `set`, long lists within it left out (they charge themselves). */
function setBytes(type: GraphQLCompositeType, set: SelectionSetNode, info: GraphQLResolveInfo): number {
  let bytes = 2;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) bytes += fieldBytes(type, selection, info);
    else {
      const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : info.fragments[selection.name.value];
      const condition = fragment?.typeCondition?.name.value;
      // A fragment on another type (of an interface's implementations) may not apply: the lower bound leaves it out.
      if (fragment && (condition === undefined || condition === type.name)) bytes += setBytes(type, fragment.selectionSet, info) - 2;
    }
  }
  return bytes;
}

function fieldBytes(type: GraphQLCompositeType, node: FieldNode, info: GraphQLResolveInfo): number {
  const key = (node.alias ?? node.name).value.length + 4;
  if (node.name.value === "__typename") return key + type.name.length + 2;
  const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[node.name.value] : undefined;
  if (!field) return 0;
  const named = getNamedType(field.type);
  if (isLeafType(named)) return key + (isEnumType(named) ? 6 : (SCALAR_BYTES[named.name] ?? OTHER_SCALAR_BYTES));
  const coordinate = `${type.name}.${field.name}`;
  if (LONG_LISTS.has(coordinate) || FLEET_JOINS.has(coordinate) || !node.selectionSet) return key + 2;
  // A short list (a machine's labels) counts one item; an object its selection.
  const one = setBytes(named, node.selectionSet, info);
  return key + (isListType(getNullableType(field.type)) ? one + 2 : one);
}
