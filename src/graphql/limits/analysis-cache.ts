import { Kind, type DocumentNode, type GraphQLError } from "graphql";
import { BYTES_PER_TOKEN, tokenCount } from "../subscription-documents.js";
import type { OperationRequest } from "./operation-limits.js";
import type { CostSizes } from "./list-bounds.js";

/** Distinct document texts kept; past that (or past KEPT_BYTES) the cache starts over. */
export const KEPT_TEXTS = 1_000;

/** The memory kept documents may hold, estimated from their tokens as SubscriptionDocuments estimates it. */
export const KEPT_BYTES = 16 * 1024 * 1024;

/** Cost verdicts kept per document (operation names and variable values); past that its verdicts start over. */
export const KEPT_VARIANTS = 32;

/** Longest operation name and variables, as JSON, whose verdict is kept; a longer one is costed every time. */
export const MAX_VARIANT_KEY_CHARS = 2_048;

type Shape = DocumentNode | readonly GraphQLError[];

interface CostVerdict {
  readonly fleet: number;
  readonly error: GraphQLError | null;
}

/**
 * What the limit checks concluded about documents, so that a repeated query pays for them once, as Apollo keeps
 * parsed and validated documents by their text. A verdict is kept only under what it depends on: the shape (tokens,
 * depth, aliases, directives; the parsed document itself) on the text alone; the cost on the document, the operation
 * name, the variables when the document declares any (they reach arguments such as `last` and `@skip`), and the fleet
 * size it was estimated with, so a larger fleet is costed afresh. The role check is not kept here: it depends on who
 * asks (see EdgeGuard). Bounded by count and by estimated memory; a document too large to keep is checked every time.
 */
export class AnalysisCache {
  private readonly shapes = new Map<string, Shape>();
  private shapeBytes = 0;
  private readonly costs = new WeakMap<DocumentNode, Map<string, CostVerdict>>();

  /** The shape verdict for `text`, from `check` the first time. */
  shape(text: string, check: () => Shape): Shape {
    const kept = this.shapes.get(text);
    if (kept !== undefined) return kept;
    const shape = check();
    const bytes = Buffer.byteLength(text) + (Array.isArray(shape) ? 0 : tokenCount(shape as DocumentNode) * BYTES_PER_TOKEN);
    if (bytes > KEPT_BYTES) return shape;
    if (this.shapes.size >= KEPT_TEXTS || this.shapeBytes + bytes > KEPT_BYTES) {
      this.shapes.clear();
      this.shapeBytes = 0;
    }
    this.shapes.set(text, shape);
    this.shapeBytes += bytes;
    return shape;
  }

  /** The cost verdict for one execution of `document`, from `check` when none is kept for the same inputs. */
  costVerdict(document: DocumentNode, request: Omit<OperationRequest, "query">, sizes: CostSizes, check: () => GraphQLError | null): GraphQLError | null {
    const key = variantKey(document, request);
    if (key === null) return check();
    let verdicts = this.costs.get(document);
    const kept = verdicts?.get(key);
    if (kept !== undefined && kept.fleet === sizes.fleet) return kept.error;
    const error = check();
    if (!verdicts || verdicts.size >= KEPT_VARIANTS) {
      verdicts = new Map();
      this.costs.set(document, verdicts);
    }
    verdicts.set(key, { fleet: sizes.fleet, error });
    return error;
  }

  /** Estimated memory held by the kept shapes. */
  get bytes(): number {
    return this.shapeBytes;
  }
}

/** What a cost verdict of `document` depends on besides the document and the fleet; null when too long to keep. */
function variantKey(document: DocumentNode, request: Omit<OperationRequest, "query">): string | null {
  const declaresVariables = document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && (d.variableDefinitions?.length ?? 0) > 0);
  const key = `${request.operationName ?? ""}\n${declaresVariables ? (JSON.stringify(request.variables ?? {}) ?? "") : ""}`;
  return key.length > MAX_VARIANT_KEY_CHARS ? null : key;
}
