/** Produces ids like `item_1`, `item_2`. Deterministic per generator, so simulations replay exactly. */
export type IdGenerator = (prefix: string) => string;

export function createIdGenerator(namespace = ''): IdGenerator {
  const counters = new Map<string, number>();
  return (prefix) => {
    const next = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, next);
    return `${prefix}_${namespace}${next}`;
  };
}

let processIds: IdGenerator | undefined;

/** Ids unique within the process, for objects created outside a session. */
export function processId(prefix: string): string {
  processIds ??= createIdGenerator();
  return processIds(prefix);
}
