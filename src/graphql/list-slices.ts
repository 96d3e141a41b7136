/** Items of a long list graphql-js completes in one turn of the event loop: about 15 ms of fields at 5,000 a list. */
export const LIST_SLICE = 500;

/**
 * A long list for graphql-js to complete in slices, a turn of the event loop between each: the first `size` items as
 * they are, each later slice's items as promises resolved one turn (setImmediate) after the slice before. graphql-js
 * completes an item's fields when its value resolves, so a 5,000-record answer (150 ms of fields on a quiet machine)
 * lets /health and the other requests in every `size` items instead of waiting for all of it. What the client gets
 * is the same list.
 */
export function inSlices<T>(items: readonly T[], size = LIST_SLICE): Array<T | Promise<T>> {
  if (items.length <= size) return [...items];
  const sliced: Array<T | Promise<T>> = items.slice(0, size);
  let turn: Promise<void> = Promise.resolve();
  for (let start = size; start < items.length; start += size) {
    turn = turn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    const ready = turn;
    for (const item of items.slice(start, start + size)) sliced.push(ready.then(() => item));
  }
  return sliced;
}
