import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from "graphql";

/** The fields of one response name in a selection set, fragments merged in: how many, and their sizes. */
interface NameGroup {
  count: number;
  /** The sum of the fields' sizes (each field with everything under it). */
  sizes: number;
  /** The sum of their squares: pairs of distinct fields weigh `(sizes² - squares) / 2`. */
  squares: number;
}

/** A selection set's selections, fragments expanded, and the comparisons validating it takes. */
interface SetWeight {
  readonly size: number;
  readonly comparisons: number;
  readonly names: ReadonlyMap<string, NameGroup>;
}

const EMPTY: SetWeight = { size: 0, comparisons: 0, names: new Map() };

/** Thrown to end a count as soon as it passes the limit: the rest of the document is never walked. */
class PastLimit {
  constructor(readonly count: number) {}
}

/**
 * The selections of every operation in `document`, with fragment spreads expanded (a spread counts its fragment's
 * selections each time), plus the comparisons graphql-js's validation makes between fields that share a response
 * name in one selection set (its OverlappingFieldsCanBeMerged rule compares every such pair, and the fields under
 * them pair by pair, with no memory of pairs it compared before). Two fields of sizes a and b (each with everything
 * under it) take at most a·b comparisons, so `{ constraints { __typename } }` written 1,240 times, 2,480 selections,
 * weighs about 3 million: the work that held the event loop for a second. A field written once costs 1.
 *
 * Each fragment definition counts once more as written (validation walks it whether it is spread or not).
 *
 * Returns the weight, or the first running total past `limit` (the walk stops there, so a huge expansion costs no
 * more than the limit to find). Linear in the document: each fragment is weighed once, however often it is spread.
 * Fragment cycles (which validation refuses) weigh nothing past their first turn.
 */
export function selectionWeight(document: DocumentNode, limit: number): number {
  const counter = new SelectionCounter(document, limit);
  try {
    return counter.documentWeight();
  } catch (err) {
    if (err instanceof PastLimit) return err.count;
    throw err;
  }
}

class SelectionCounter {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  /** By fragment name; null while it is being weighed (a cycle). */
  private readonly weighed = new Map<string, SetWeight | null>();
  private total = 0;

  constructor(
    private readonly document: DocumentNode,
    private readonly limit: number,
  ) {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(definition.name.value, definition);
    }
  }

  documentWeight(): number {
    for (const definition of this.document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION) {
        const weight = this.setWeight(definition.selectionSet);
        this.add(weight.size + weight.comparisons);
      } else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        // Validation walks and compares within every fragment once, spread or not; its size counts again where it is spread.
        const weight = this.fragmentWeight(definition.name.value);
        this.add(weight.size + weight.comparisons);
      }
    }
    return this.total;
  }

  /** Adds to the running total; past the limit the count ends. */
  private add(n: number): void {
    this.total += n;
    if (this.total > this.limit) throw new PastLimit(this.total);
  }

  private fragmentWeight(name: string): SetWeight {
    const known = this.weighed.get(name);
    if (known !== undefined) return known ?? EMPTY;
    const fragment = this.fragments.get(name);
    if (!fragment) return EMPTY;
    this.weighed.set(name, null);
    const weight = this.setWeight(fragment.selectionSet);
    this.weighed.set(name, weight);
    return weight;
  }

  private setWeight(set: SelectionSetNode): SetWeight {
    const names = new Map<string, NameGroup>();
    let size = 0;
    let comparisons = 0;
    // An inline fragment's set is validated on its own as well as merged here; a spread fragment's once, where it is defined.
    const merge = (inner: SetWeight, ownComparisons: boolean) => {
      size += inner.size;
      if (ownComparisons) comparisons += inner.comparisons;
      for (const [name, group] of inner.names) addGroup(names, name, group.count, group.sizes, group.squares);
    };
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const child = selection.selectionSet ? this.setWeight(selection.selectionSet) : EMPTY;
        const fieldSize = 1 + child.size;
        size += fieldSize;
        comparisons += child.comparisons;
        addGroup(names, (selection.alias ?? selection.name).value, 1, fieldSize, fieldSize * fieldSize);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        merge(this.setWeight(selection.selectionSet), true);
      } else {
        merge(this.fragmentWeight(selection.name.value), false);
      }
      // Sizes only grow: a set already past the limit ends the count before its comparisons are weighed.
      if (this.total + size > this.limit) throw new PastLimit(this.total + size);
    }
    for (const group of names.values()) if (group.count > 1) comparisons += (group.sizes * group.sizes - group.squares) / 2;
    return { size, comparisons, names };
  }
}

function addGroup(names: Map<string, NameGroup>, name: string, count: number, sizes: number, squares: number): void {
  const group = names.get(name);
  if (group) {
    group.count += count;
    group.sizes += sizes;
    group.squares += squares;
  } else names.set(name, { count, sizes, squares });
}
