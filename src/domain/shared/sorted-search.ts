/**
 * The first position in [low, high) at which `before` no longer holds, or `high` when it holds throughout; `before`
 * must hold on a prefix of the range and nowhere after it (a value below the one sought, in ascending order).
 */
export function lowerBound(low: number, high: number, before: (i: number) => boolean): number {
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}
