// Async sources shared by the tests of the stream-reading helpers. Not exported from the package root.

/** A source whose items the test releases one by one; it records how often it was pulled and stopped. */
export function controlledSource<T>() {
  const waiting: Array<{ resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }> = [];
  const log = { returned: 0, nexts: 0 };
  const iterator: AsyncIterator<T> = {
    next: () => {
      log.nexts++;
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return: () => {
      log.returned++;
      return Promise.resolve({ done: true, value: undefined });
    },
  };
  return {
    source: { [Symbol.asyncIterator]: () => iterator } as AsyncIterable<T>,
    log,
    give: (value: T) => waiting.shift()?.resolve({ done: false, value }),
    end: () => waiting.shift()?.resolve({ done: true, value: undefined }),
    fail: (error: unknown) => waiting.shift()?.reject(error),
  };
}

/** A source that yields `values` and ends. */
export async function* items<T>(...values: T[]): AsyncGenerator<T> {
  yield* values;
}
