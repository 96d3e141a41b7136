import { validate, type DocumentNode, type GraphQLError, type GraphQLSchema } from "graphql";
import type { OperationLimits } from "./limits/operation-limits.js";

/** How many distinct subscription documents are kept; past that (or past the byte bound) the cache starts over. */
const KEPT_DOCUMENTS = 1_000;

/**
 * Parsed and validated subscription documents, by query text. Dashboards and alert bridges open many identical
 * subscriptions; each used to parse and validate its own copy (13 AST tokens and locations per subscriber, and the
 * CPU of validation on every connect). One copy serves them all, and the subscription executor's per-document
 * work is keyed by it. Invalid documents keep their errors, which are the same every time.
 *
 * Every document passed the operation limits on its shape before graphql-js validated it; what is kept is bounded
 * by count and by the total length of the query texts (a document holds its source), so distinct large documents
 * cannot fill memory. A text longer than the whole byte bound is checked every time and never kept.
 */
export class SubscriptionDocuments {
  private readonly kept = new Map<string, DocumentNode | readonly GraphQLError[]>();
  private keptBytes = 0;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limits: OperationLimits,
    private readonly maxBytes: number,
  ) {}

  /** The document for `query`, or the limit, syntax or validation errors to send back. */
  get(query: string): DocumentNode | readonly GraphQLError[] {
    let found = this.kept.get(query);
    if (found === undefined) {
      found = this.build(query);
      const bytes = Buffer.byteLength(query);
      if (bytes > this.maxBytes) return found;
      if (this.kept.size >= KEPT_DOCUMENTS || this.keptBytes + bytes > this.maxBytes) {
        this.kept.clear();
        this.keptBytes = 0;
      }
      this.kept.set(query, found);
      this.keptBytes += bytes;
    }
    return found;
  }

  /** Total size in bytes (UTF-8) of the query texts kept. */
  get bytes(): number {
    return this.keptBytes;
  }

  private build(query: string): DocumentNode | readonly GraphQLError[] {
    const document = this.limits.shape(query);
    if (Array.isArray(document)) return document as readonly GraphQLError[];
    const errors = validate(this.schema, document as DocumentNode);
    return errors.length > 0 ? errors : (document as DocumentNode);
  }
}
