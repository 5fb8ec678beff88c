/**
 * Functions shared by the metadata operations: decoding `{table, ...}` arguments, finding a tracked
 * table (Hasura's `table "x" does not exist`), and removing objects with their dependents.
 */
import { ApiError, displayName, parseQualifiedName } from '../../core/index.js';
import type { QualifiedTable } from '../../core/index.js';
import { asBool, asObject, findTable, optional, removeObject, required } from '../../metadata/index.js';
import type { JsonObject, Metadata, MetadataObjectId, TableInfo, TableMetadata } from '../../metadata/index.js';
import type { OpContext } from '../types.js';
import { dependencyError } from '../dependents.js';

export const quote = (s: string): string => JSON.stringify(s);
export const quoteTable = (q: QualifiedTable): string => quote(displayName(q));

/** `args` as an object plus its required `table`. */
export function decodeWithTable(args: unknown, path: string): { o: JsonObject; table: QualifiedTable } {
  const o = asObject(args, path);
  return { o, table: required(o, 'table', path, parseQualifiedName) };
}

export const optionalBool = (o: JsonObject, key: string, path: string): boolean => optional(o, key, path, asBool) ?? false;

export const tableNotFound = (table: QualifiedTable, path = '$.args.table'): ApiError =>
  new ApiError('not-exists', `table ${quoteTable(table)} does not exist`, { path });

/** The table's entry in a metadata draft, or not-exists. */
export function tableEntry(md: Metadata, table: QualifiedTable, path = '$.args.table'): TableMetadata {
  const t = findTable(md, table);
  if (!t) throw tableNotFound(table, path);
  return t;
}

/** The consistent TableInfo of a tracked table in the working cache, or not-exists. */
export async function trackedTableInfo(ctx: OpContext, table: QualifiedTable, path = '$.args.table'): Promise<TableInfo> {
  const cache = await ctx.work.cache();
  const info = cache.tables.get(`${table.schema}.${table.name}`);
  if (!info) throw tableNotFound(table, path);
  return info;
}

/**
 * Removes `dependents` from `md` when `cascade`, else refuses with a dependency-error.
 * Dependents are removed last-first (a permission before the relationship it uses).
 */
export function dropDependents(md: Metadata, dependents: readonly MetadataObjectId[], cascade: boolean): void {
  if (dependents.length === 0) return;
  if (!cascade) throw dependencyError(dependents);
  for (const id of [...dependents].reverse()) removeObject(md, id);
}
