import { GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from "graphql";

/** How many distinct subscription documents are kept; past that the cache starts over. */
const KEPT_DOCUMENTS = 1_000;

/**
 * Parsed and validated subscription documents, by query text. Dashboards and alert bridges open many identical
 * subscriptions; each used to parse and validate its own copy (13 AST tokens and locations per subscriber, and the
 * CPU of validation on every connect). One copy serves them all, and the subscription executor's per-document
 * work is keyed by it. Invalid documents keep their errors, which are the same every time.
 */
export class SubscriptionDocuments {
  private readonly kept = new Map<string, DocumentNode | readonly GraphQLError[]>();

  constructor(private readonly schema: GraphQLSchema) {}

  /** The document for `query`, or the syntax or validation errors to send back. */
  get(query: string): DocumentNode | readonly GraphQLError[] {
    let found = this.kept.get(query);
    if (found === undefined) {
      found = this.build(query);
      if (this.kept.size >= KEPT_DOCUMENTS) this.kept.clear();
      this.kept.set(query, found);
    }
    return found;
  }

  private build(query: string): DocumentNode | readonly GraphQLError[] {
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch (err) {
      if (err instanceof GraphQLError) return [err];
      throw err;
    }
    const errors = validate(this.schema, document);
    return errors.length > 0 ? errors : document;
  }
}
