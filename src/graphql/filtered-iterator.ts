/** Passes on only the values `keep` accepts; ending it ends the source. */
export function filterIterator<T>(source: AsyncIterableIterator<T>, keep: (value: T) => boolean): AsyncIterableIterator<T> {
  const iterator: AsyncIterableIterator<T> = {
    async next() {
      for (;;) {
        const result = await source.next();
        if (result.done || keep(result.value)) return result;
      }
    },
    return: () => source.return?.() ?? Promise.resolve({ value: undefined, done: true }),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
