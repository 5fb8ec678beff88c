/**
 * Root-field name clashes between tables and functions (Hasura v1.3's `combineRootFields`): when two
 * tracked objects would give the admin role the same `query_root` or `mutation_root` field (a custom
 * root field named like another table's field, a function named like a table...), the metadata
 * change is refused with `following query root fields are duplicated: "x"`. Names only; no schema
 * is built. Admin sees every root field, so checking admin covers every role.
 */
import { ApiError } from '../../core/index.js';
import type { SchemaCache } from '../../metadata/index.js';
import { isGraphqlName, rootFieldNames } from './names.js';
import { mutationFieldNames } from './mutationRoot.js';

function duplicates(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const n of names) (seen.has(n) ? dups : seen).add(n);
  return [...dups];
}

/** Query and mutation root field names of the remote schemas of `cache`. */
export function remoteRootFields(cache: SchemaCache): { query: string[]; mutation: string[] } {
  const query: string[] = [];
  const mutation: string[] = [];
  for (const r of cache.remoteSchemas?.values() ?? []) {
    query.push(...(r.queryRoot?.fields ?? []).map((f) => f.name));
    mutation.push(...(r.mutationRoot?.fields ?? []).map((f) => f.name));
  }
  return { query, mutation };
}

/** The admin role's duplicated query and mutation root field names (remote schemas' included). */
export function duplicateRootFields(cache: SchemaCache): { query: string[]; mutation: string[] } {
  const remote = remoteRootFields(cache);
  const db = databaseRootFields(cache);
  return { query: duplicates([...db.query, ...remote.query]), mutation: duplicates([...db.mutation, ...remote.mutation]) };
}

/** The admin role's query and mutation root field names from tables and functions. */
export function databaseRootFields(cache: SchemaCache): { query: string[]; mutation: string[] } {
  const query: string[] = [];
  const mutation: string[] = [];
  for (const t of cache.tables.values()) {
    if (!isGraphqlName(t.gqlName)) continue;
    const q = rootFieldNames(t);
    const m = mutationFieldNames(t);
    const hasPk = (t.primaryKey?.length ?? 0) > 0;
    query.push(q.select, q.selectAggregate);
    if (hasPk) query.push(q.selectByPk);
    if (t.mutability.insertable) mutation.push(m.insert, m.insertOne);
    if (t.mutability.updatable) mutation.push(m.update, ...(hasPk ? [m.updateByPk] : []));
    if (t.mutability.deletable) mutation.push(m.delete, ...(hasPk ? [m.deleteByPk] : []));
  }
  for (const fn of cache.functions.values()) {
    if (!isGraphqlName(fn.gqlName) || !cache.tables.has(`${fn.returnTable.schema}.${fn.returnTable.name}`)) continue;
    query.push(fn.gqlName, `${fn.gqlName}_aggregate`);
  }
  return { query, mutation };
}

/** Throws Hasura's 400 `unexpected` error when `cache` has clashing root fields. */
export function assertNoRootFieldConflicts(cache: SchemaCache, path = '$.args'): void {
  const { query, mutation } = duplicateRootFields(cache);
  const show = (ns: string[]) => ns.map((n) => `"${n}"`).join(', ');
  const remote = remoteRootFields(cache);
  const remoteQ = query.filter((n) => remote.query.includes(n));
  const remoteM = mutation.filter((n) => remote.mutation.includes(n));
  if (remoteQ.length > 0 || remoteM.length > 0) {
    throw new ApiError('remote-schema-conflicts', `conflicting root fields with remote schemas: ${show([...remoteQ, ...remoteM])}`, { path });
  }
  if (query.length > 0) throw new ApiError('unexpected', `following query root fields are duplicated: ${show(query)}`, { path });
  if (mutation.length > 0) throw new ApiError('unexpected', `following mutation root fields are duplicated: ${show(mutation)}`, { path });
}
