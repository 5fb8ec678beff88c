/**
 * Hasura's way of quoting names in validation messages: names in double quotes (`"author"`),
 * type names in single quotes (`'query_root'`), full types as written (`[Int!]!`), and the
 * `validation-failed` error with a JSON path.
 */
import { ApiError } from '../../core/index.js';
import type { GraphQLType } from 'graphql';

export const showName = (n: string): string => `"${n}"`;
export const showNames = (ns: readonly string[]): string => ns.map(showName).join(', ');
export const showNamedTy = (n: string): string => `'${n}'`;
export const showGT = (t: GraphQLType): string => String(t);

/** A `validation-failed` error at `path`. */
export const vf = (message: string, path: string): ApiError => new ApiError('validation-failed', message, { path });

/** Values that occur more than once, each once, in first-seen order. */
export function duplicates(items: readonly string[]): string[] {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const i of items) {
    if (seen.has(i)) dups.add(i);
    else seen.add(i);
  }
  return [...dups];
}
