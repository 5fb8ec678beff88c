/**
 * The values that occur more than once in a list, each once, in the order of their second
 * occurrence. Linear: metadata documents carry tens of thousands of names (a query collection of
 * 25,000 queries), where the quadratic `items.indexOf(x) !== i` took 650 ms of one event-loop turn.
 */
export function duplicateValues<T>(items: readonly T[]): T[] {
  const seen = new Set<T>();
  const dups = new Set<T>();
  for (const x of items) {
    if (seen.has(x)) dups.add(x);
    else seen.add(x);
  }
  return [...dups];
}
