import { Kind, type DocumentNode, type ParseOptions, type SelectionNode, type SelectionSetNode } from "graphql";
import { Parser } from "graphql/language/parser.js";

/** One selection set being parsed: its fields' sizes so far, and by response name the sum of their sizes. */
interface OpenSet {
  size: number;
  readonly names: Map<string, number>;
}

/** Thrown by the parser once a document's selections pass the limit: parsing stops there. */
export class TooManySelections extends Error {
  override readonly name = "TooManySelections";
}

/**
 * graphql-js's parser, weighing selections as it goes as selectionWeight does (see selection-count.ts), within each
 * selection set as written (fragments are weighed once the whole document is known): every field counts 1, and a
 * field of size s joining fields of the same response name whose sizes add up to S weighs s x S more, the
 * comparisons validation would make. Parsing stops with TooManySelections at the first field that takes the weight
 * past `limit`, so `{ constraints { __typename } }` written 1,240 times (5,000 tokens) is refused after about a
 * hundred tokens, before its tree is built. What it counts is part of what selectionWeight counts, never more.
 */
class CountingParser extends Parser {
  private readonly open: OpenSet[] = [];
  private readonly sizes = new WeakMap<SelectionSetNode, number>();
  private weight = 0;

  constructor(
    source: string,
    options: ParseOptions,
    private readonly limit: number,
  ) {
    super(source, options);
  }

  override parseSelectionSet(): SelectionSetNode {
    const set: OpenSet = { size: 0, names: new Map() };
    this.open.push(set);
    try {
      const node = super.parseSelectionSet();
      this.sizes.set(node, set.size);
      return node;
    } finally {
      this.open.pop();
    }
  }

  override parseSelection(): SelectionNode {
    const node = super.parseSelection();
    const set = this.open.at(-1);
    if (node.kind !== Kind.FIELD || set === undefined) return node;
    const size = 1 + (node.selectionSet ? (this.sizes.get(node.selectionSet) ?? 0) : 0);
    const name = (node.alias ?? node.name).value;
    const alike = set.names.get(name) ?? 0;
    set.names.set(name, alike + size);
    set.size += size;
    this.weight += 1 + size * alike;
    if (this.weight > this.limit) throw new TooManySelections(`more than ${this.limit} selections`);
    return node;
  }
}

/**
 * `parse(query, options)`, refusing with TooManySelections a document whose selections pass `maxSelections` as they
 * are parsed (a syntax error or the token limit is graphql-js's GraphQLError, as from `parse`).
 */
export function parseCounting(query: string, options: ParseOptions, maxSelections: number): DocumentNode {
  const parser = new CountingParser(query, options, maxSelections);
  const document = parser.parseDocument();
  Object.defineProperty(document, "tokenCount", { enumerable: false, value: parser.tokenCount });
  return document;
}
