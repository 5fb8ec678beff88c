/**
 * Hostile GraphQL documents for the hardening tests and the HARDENING.md measurements: each one is
 * small to send and, without bounds, makes the engine do work exponential or quadratic in its size.
 * They run against a table `t (id, parent_id)` with relationships `parent` / `children`.
 */

/** A fragment bomb: `fragment F0 on t { id ...A1 ...B1 }`, A_i and B_i spread F_i, `levels` deep (2^levels expansions). */
export function fragmentBomb(levels = 24, onType = 't'): string {
  const frags: string[] = [];
  for (let i = 0; i < levels; i++) {
    frags.push(`fragment F${i} on ${onType} { id ...A${i + 1} ...B${i + 1} }`);
    frags.push(`fragment A${i + 1} on ${onType} { ...F${i + 1} }`);
    frags.push(`fragment B${i + 1} on ${onType} { ...F${i + 1} }`);
  }
  frags.push(`fragment F${levels} on ${onType} { id }`);
  return `query { t { ...F0 } }\n${frags.join('\n')}`;
}

/** Fragments spreading each other wide rather than deep: `width` spreads of `width` spreads of `width` fields. */
export function wideFragments(width = 300): string {
  const leaf = `fragment L on t { ${Array.from({ length: width }, (_, i) => `f${i}: id`).join(' ')} }`;
  const mid = `fragment M on t { ${'...L '.repeat(width)}}`;
  return `query { t { ${'...M '.repeat(width)}} }\n${mid}\n${leaf}`;
}

/** `{ t { children { children { ... id } } } }`, `depth` levels. */
export const deepSelection = (depth = 2000): string => `{ t { ${'children { '.repeat(depth)}id${' }'.repeat(depth)} } }`;

/** `count` aliases of a root field: one SQL subquery each. */
export const manyAliases = (count = 20000): string => `{ ${Array.from({ length: count }, (_, i) => `a${i}: t { id }`).join(' ')} }`;

/** The same field `count` times (merged into one). */
export const repeatedField = (count = 100000): string => `{ t { ${'id '.repeat(count)}} }`;

/** One field with `count` directives. */
export const manyDirectives = (count = 20000): string => `{ t { id ${'@include(if: true) '.repeat(count)}} }`;

/** `count` operations in one document. */
export const manyOperations = (count = 20000): string => Array.from({ length: count }, (_, i) => `query Q${i} { t { id } }`).join('\n');

/** `count` variable definitions. */
export const manyVariables = (count = 20000): string => `query (${Array.from({ length: count }, (_, i) => `$v${i}: Int`).join(', ')}) { t { id } }`;

/** A `where` literal nested `depth` levels through `_and`. */
export const deepWhereLiteral = (depth = 2000): string => `{ t(where: ${'{_and: ['.repeat(depth)}{}${']}'.repeat(depth)}) { id } }`;

/** A string literal of `bytes` characters. */
export const giantString = (bytes = 4_000_000): string => `{ t(where: {name: {_eq: "${'x'.repeat(bytes)}"}}) { id } }`;

/** A request body whose `where` variable is nested `depth` levels. */
export const deepVariableBody = (depth = 100000): string =>
  `{"query":"query ($w: t_bool_exp) { t(where: $w) { id } }","variables":{"w":${'{"_not":'.repeat(depth)}{}${'}'.repeat(depth)}}}`;

/** Introspection whose response grows exponentially with the nesting of `fields { type { fields ...`. */
export const introspectionBomb = (levels = 8): string =>
  `{ __schema { types { ${'fields { type { '.repeat(levels)}name${' } }'.repeat(levels)} } } }`;

/** `copies` same-alias copies of a `depth`-deep chain: every level merges again (work × depth). */
export const mergeBomb = (copies = 150, depth = 120): string =>
  `{ ${Array.from({ length: copies }, () => `t { ${'children { '.repeat(depth)}id${' }'.repeat(depth)} }`).join(' ')} }`;
