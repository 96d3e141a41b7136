import { GraphQLError, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from "graphql";
import { maxAliasesRule } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthRule } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesRule } from "@escape.tech/graphql-armor-max-directives";
import type { Limits } from "../../config/limits.js";
import { limitError } from "../errors.js";
import { AnalysisCache } from "./analysis-cache.js";
import type { CostSizes } from "./list-bounds.js";
import { operationCost } from "./operation-cost.js";
import { parseCounting, TooManySelections } from "./counting-parser.js";
import { selectionWeight } from "./selection-count.js";
import { variableDepthError } from "./variable-depth.js";

function tooManySelections(max: number): GraphQLError {
  return limitError(
    "QUERY_TOO_COMPLEX",
    "max_selections",
    `the operation has more than ${max} selections, counting fragments expanded and fields of one response name by the comparisons between them (limits.max_selections)`,
  );
}

/** One operation as a client sends it, over HTTP or WebSocket. */
export interface OperationRequest {
  readonly query: string;
  readonly operationName?: string | undefined;
  readonly variables?: Record<string, unknown> | undefined;
}

interface ShapeLimit {
  readonly key: string;
  readonly what: string;
  readonly limit: number;
  readonly rule: ValidationRule;
}

/**
 * The limits on what an operation may ask for, applied in order of cost so that each check is cheap next to what
 * it protects: tokens and selections while parsing (a huge document, or one field written a thousand times, is refused
 * before its AST is built; fields of one response name weigh the comparisons graphql-js's field-merging check would
 * make between them, the check such a document makes explode), the selections again once the document is whole
 * (one walk: fragment spreads expanded), then depth, aliases and directives (graphql-armor's rules, which count through fragment spreads once per
 * fragment), and only then the cost estimate; graphql-js's own validation comes after them. HTTP and WebSocket
 * requests go through the same instance.
 */
export class OperationLimits {
  private readonly shapeLimits: readonly ShapeLimit[];
  private readonly cache = new AnalysisCache();

  /** `sizes` gives the sizes behind the list bounds (the fleet) at the time of each check. */
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limits: Limits,
    private readonly sizes: () => CostSizes = () => ({ fleet: 0 }),
  ) {
    const options = { exposeLimits: true, propagateOnRejection: true } as const;
    this.shapeLimits = [
      // Introspection is counted like anything else: a query nested through __type.fields.type is as deep as it looks.
      {
        key: "max_depth",
        what: "fields deep",
        limit: limits.maxDepth,
        rule: maxDepthRule({ ...options, n: limits.maxDepth, ignoreIntrospection: false, flattenFragments: true }),
      },
      { key: "max_aliases", what: "aliases", limit: limits.maxAliases, rule: maxAliasesRule({ ...options, n: limits.maxAliases }) },
      { key: "max_directives", what: "directives", limit: limits.maxDirectives, rule: maxDirectivesRule({ ...options, n: limits.maxDirectives }) },
    ];
  }

  /**
   * Parses `query` and checks every limit on its shape (not its cost, which depends on variables). Returns the
   * document, or the errors to answer with: a limit's QUERY_TOO_COMPLEX or a syntax error. graphql-js's own
   * validation is left to the caller, to run only on documents that passed.
   */
  shape(query: string): DocumentNode | readonly GraphQLError[] {
    const maxSelections = this.limits.maxSelections;
    let document: DocumentNode;
    try {
      document = parseCounting(query, { maxTokens: this.limits.maxTokens }, maxSelections);
    } catch (err) {
      if (err instanceof TooManySelections) return [tooManySelections(maxSelections)];
      if (!(err instanceof GraphQLError)) throw err;
      if (/more tha[nt] \d+ tokens/.test(err.message)) {
        return [
          limitError(
            "QUERY_TOO_COMPLEX",
            "max_tokens",
            `the document has more than ${this.limits.maxTokens} tokens (limits.max_tokens); it was not parsed further`,
          ),
        ];
      }
      return [err];
    }
    // Counted as written while parsing; here with every fragment spread expanded.
    if (selectionWeight(document, maxSelections) > maxSelections) return [tooManySelections(maxSelections)];
    for (const { key, what, limit, rule } of this.shapeLimits) {
      try {
        validate(this.schema, document, [rule]);
      } catch (err) {
        if (!(err instanceof GraphQLError)) throw err;
        const found = /found (\d+)/.exec(err.message)?.[1] ?? "more";
        return [limitError("QUERY_TOO_COMPLEX", key, `the operation has ${found} ${what}, more than the limit of ${limit} (limits.${key})`)];
      }
    }
    return document;
  }

  /**
   * The cost check for one execution of a document that passed {@link shape}; null when within budget. Verdicts are
   * kept by document, operation name, the variables the document declares and the fleet size (see AnalysisCache).
   */
  cost(document: DocumentNode, request: Omit<OperationRequest, "query">): GraphQLError | null {
    const sizes = this.sizes();
    return this.cache.costVerdict(document, request, sizes, () => this.costError(document, request, sizes));
  }

  private costError(document: DocumentNode, request: Omit<OperationRequest, "query">, sizes: CostSizes): GraphQLError | null {
    const max = this.limits.maxCost;
    const cost = operationCost(this.schema, document, request.operationName, request.variables, sizes);
    if (cost <= max) return null;
    const estimate = Number.isSafeInteger(cost) ? String(cost) : `more than ${Number.MAX_SAFE_INTEGER}`;
    return limitError("QUERY_TOO_COMPLEX", "max_cost", `the operation's estimated cost is ${estimate}, more than the limit of ${max} (limits.max_cost)`);
  }

  /**
   * The refusal of a request's JSON text or its UTF-8 bytes (an HTTP body, `levels` 1; a GET request's `variables`, 0) that nests a
   * value deeper than limits.max_variable_depth, or null: checked before the text is parsed.
   */
  depth(json: string | Uint8Array, levels: number): GraphQLError | null {
    return variableDepthError(json, this.limits.maxVariableDepth, levels);
  }

  /**
   * Shape and cost, for an HTTP request: null when the operation may go on to Apollo, which parses and validates it
   * again (and keeps the validated document in its own cache). The shape verdict is kept by the document's text, as
   * Apollo keeps its parsed and validated documents, so a repeated query is parsed and checked once.
   */
  admit(request: OperationRequest): readonly GraphQLError[] | null {
    const document = this.cache.shape(request.query, () => this.shape(request.query));
    // A plain syntax error is left to Apollo, which answers it with its own code.
    if (Array.isArray(document))
      return (document as readonly GraphQLError[]).some((e) => e.extensions["type"] !== undefined) ? (document as readonly GraphQLError[]) : null;
    const tooCostly = this.cost(document as DocumentNode, request);
    return tooCostly ? [tooCostly] : null;
  }
}
