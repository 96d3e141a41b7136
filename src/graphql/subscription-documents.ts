import { validate, type DocumentNode, type GraphQLError, type GraphQLSchema } from "graphql";
import type { OperationLimits } from "./limits/operation-limits.js";

/** How many distinct subscription documents are kept; past that (or past the byte bound) the cache starts over. */
const KEPT_DOCUMENTS = 1_000;

/**
 * What one token of a parsed document holds on the heap: its AST node share, its location and the token itself in
 * the document's token list (measured with graphql-js 16: 380 to 515 bytes, whatever the token's length).
 */
export const BYTES_PER_TOKEN = 512;

/** What one kept error holds besides the document: its message, path and locations. */
const BYTES_PER_ERROR = 1024;

/** A parsed (or refused) document with what keeping it costs in memory, estimated. */
interface Built {
  readonly result: DocumentNode | readonly GraphQLError[];
  readonly bytes: number;
}

/** The tokens of a parsed document, counted along the token list its location keeps (as long as the document). */
export function tokenCount(document: DocumentNode): number {
  let count = 0;
  for (let token = document.loc?.startToken ?? null; token !== null; token = token.next) count++;
  return count;
}

/**
 * Parsed and validated subscription documents, by query text. Dashboards and alert bridges open many identical
 * subscriptions; each used to parse and validate its own copy (13 AST tokens and locations per subscriber, and the
 * CPU of validation on every connect). One copy serves them all, and the subscription executor's per-document
 * work is keyed by it. Invalid documents keep their errors, which are the same every time.
 *
 * Every document passed the operation limits on its shape before graphql-js validated it; what is kept is bounded
 * by count and by the memory it holds, estimated from its tokens (about 500 bytes each: a parsed document is 80 to
 * 250 times its text, and its errors keep it alive), so distinct large documents cannot fill memory. A document
 * whose estimate passes the whole bound is checked every time and never kept.
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
    const kept = this.kept.get(query);
    if (kept !== undefined) return kept;
    const { result, bytes } = this.build(query);
    if (bytes > this.maxBytes) return result;
    if (this.kept.size >= KEPT_DOCUMENTS || this.keptBytes + bytes > this.maxBytes) {
      this.kept.clear();
      this.keptBytes = 0;
    }
    this.kept.set(query, result);
    this.keptBytes += bytes;
    return result;
  }

  /** The estimated memory, in bytes, of the documents and errors kept. */
  get bytes(): number {
    return this.keptBytes;
  }

  private build(query: string): Built {
    const text = Buffer.byteLength(query);
    const document = this.limits.shape(query);
    // Refused before or while parsing: the errors keep the text, not a document.
    if (Array.isArray(document)) return { result: document as readonly GraphQLError[], bytes: text + document.length * BYTES_PER_ERROR };
    const parsed = document as DocumentNode;
    const errors = validate(this.schema, parsed);
    // Validation errors point into the document, so they keep all of it alive too.
    const bytes = text + tokenCount(parsed) * BYTES_PER_TOKEN + errors.length * BYTES_PER_ERROR;
    return { result: errors.length > 0 ? errors : parsed, bytes };
  }
}
