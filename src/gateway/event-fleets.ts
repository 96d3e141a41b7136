import { coversTree, mergeTrees, type SelectionTree } from "./selection-tree.js";

/** A fleet search for one event: the selection it sends (growing until it is sent) and its answer. */
interface Search<F> {
  readonly tree: SelectionTree;
  sent: boolean;
  readonly answer: Promise<F>;
}

/**
 * The fleet searches of subscription events, shared by every subscriber: the executions of one event (one payload
 * object, handed by pubsub to every subscription) that need the fleet within the same turn of the event loop join
 * ONE search whose selection is the union of theirs, and a later one whose selection that search covers shares its
 * answer. So N subscriptions with different documents on `RepairEntry.machine` cost sabakan one search per event,
 * not N. Entries go with their event (a WeakMap on the payload).
 */
export class EventFleets<F> {
  private readonly byEvent = new WeakMap<object, Array<Search<F>>>();

  /** @param search sends one search with `tree` and reads its answer. */
  constructor(private readonly search: (tree: SelectionTree) => Promise<F>) {}

  /** The fleet for `event`, with at least the fields of `tree`. */
  fleetFor(event: object, tree: SelectionTree): Promise<F> {
    let searches = this.byEvent.get(event);
    if (!searches) {
      searches = [];
      this.byEvent.set(event, searches);
    }
    const pending = searches.find((s) => !s.sent);
    if (pending) {
      mergeTrees(pending.tree, tree);
      return pending.answer;
    }
    const covering = searches.find((s) => coversTree(s.tree, tree));
    if (covering) return covering.answer;
    const union: SelectionTree = new Map();
    mergeTrees(union, tree);
    // Sent after the other subscribers' executions of this event have had their turn to join.
    const answer = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      search.sent = true;
      return this.search(union);
    });
    const search: Search<F> = { tree: union, sent: false, answer };
    answer.catch(() => undefined);
    searches.push(search);
    return answer;
  }
}
