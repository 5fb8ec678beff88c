/**
 * JSON request bodies that are cheap to send and costly to parse: many small values, deep nesting,
 * many keys, long batches, long escaped strings. Each is a /v1/graphql body of about `bytes` bytes
 * (or `n` members). Used by the stall tests and scripts/benchStall.mjs.
 */

/** `[{},{},…]`: one object per 3 bytes. */
export const emptyObjects = (bytes: number): string => `[${'{},'.repeat(Math.max(1, Math.floor((bytes - 2) / 3) - 1))}{}]`;

/** `[[[…]]]`: one array per 2 bytes, nested. */
export const deepArrays = (bytes: number): string => `${'['.repeat(Math.floor(bytes / 2))}${']'.repeat(Math.floor(bytes / 2))}`;

/** A query with `n` distinct variable names (unused). */
export const manyKeys = (n: number): string => {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`"k${i}":0`);
  return `{"query":"{ t(order_by: {id: asc}) { id } }","variables":{${parts.join(',')}}}`;
};

/** A batch of `n` small queries. */
export const bigBatch = (n: number): string => `[${Array.from({ length: n }, () => '{"query":"{ t { id } }"}').join(',')}]`;

/** A query with one string variable of `\u0041` escapes, about `bytes` long (matching no row's name). */
export const escapedString = (bytes: number): string =>
  `{"query":"query ($s: String) { t(where: {name: {_neq: $s}}, order_by: {id: asc}) { id } }","variables":{"s":"${'\\u0041'.repeat(Math.floor(bytes / 6))}"}}`;
