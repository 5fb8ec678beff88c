/**
 * Relationships suggested from foreign keys, as Hasura's console suggests them: on the referencing
 * table an object relationship (`foreign_key_constraint_on: column`), on the referenced one an array
 * relationship (`foreign_key_constraint_on: {table, column}`); a key over several columns becomes a
 * manual configuration. Keys already used by a relationship, and keys to untracked tables, are left out.
 */
import { refOf, tableKey, type ForeignKey, type TableRef } from './names.js';

export interface Suggestion {
  kind: 'object' | 'array';
  table: TableRef;
  name: string;
  using: unknown;
  /** The other table. */
  target: TableRef;
  constraint: string;
}

const plural = (n: string): string => (n.endsWith('s') ? `${n}_list` : `${n}s`);
const same = (a: TableRef, b: unknown): boolean => tableKey(a) === tableKey(refOf(b));

/** `columns`: the table's columns, whose names a relationship cannot take. */
export function suggestRelationships(table: TableRef, entry: any, fks: ForeignKey[], tracked: Set<string>, columns: string[] = []): Suggestion[] {
  const out: Suggestion[] = [];
  const taken = new Set<string>([...columns, ...[...(entry?.object_relationships ?? []), ...(entry?.array_relationships ?? []), ...(entry?.remote_relationships ?? [])].map((r: any) => r.name)]);
  const free = (n: string): string => {
    let name = n;
    for (let i = 2; taken.has(name); i++) name = `${n}${i}`;
    taken.add(name);
    return name;
  };
  const usedObject = (fk: ForeignKey) => (entry?.object_relationships ?? []).some((r: any) => {
    const u = r.using ?? {};
    if (u.foreign_key_constraint_on !== undefined) return fk.columns.length === 1 && u.foreign_key_constraint_on === fk.columns[0];
    const m = u.manual_configuration;
    return m && same(fk.to, m.remote_table) && fk.columns.every((c, i) => m.column_mapping?.[c] === fk.refColumns[i]);
  });
  const usedArray = (fk: ForeignKey) => (entry?.array_relationships ?? []).some((r: any) => {
    const u = r.using ?? {};
    const f = u.foreign_key_constraint_on;
    if (f) return fk.columns.length === 1 && f.column === fk.columns[0] && same(fk.from, f.table);
    const m = u.manual_configuration;
    return m && same(fk.from, m.remote_table) && fk.refColumns.every((c, i) => m.column_mapping?.[c] === fk.columns[i]);
  });
  for (const fk of fks) {
    if (tableKey(fk.from) === tableKey(table) && tracked.has(tableKey(fk.to)) && !usedObject(fk)) {
      const col = fk.columns[0];
      const base = fk.columns.length === 1 && col.endsWith('_id') && col.length > 3 ? col.slice(0, -3) : fk.to.name;
      const using = fk.columns.length === 1
        ? { foreign_key_constraint_on: col }
        : { manual_configuration: { remote_table: fk.to, column_mapping: Object.fromEntries(fk.columns.map((c, i) => [c, fk.refColumns[i]])) } };
      out.push({ kind: 'object', table, name: free(base), using, target: fk.to, constraint: fk.constraint });
    }
    if (tableKey(fk.to) === tableKey(table) && tracked.has(tableKey(fk.from)) && !usedArray(fk)) {
      const using = fk.columns.length === 1
        ? { foreign_key_constraint_on: { table: fk.from, column: fk.columns[0] } }
        : { manual_configuration: { remote_table: fk.from, column_mapping: Object.fromEntries(fk.refColumns.map((c, i) => [c, fk.columns[i]])) } };
      out.push({ kind: 'array', table, name: free(plural(fk.from.name)), using, target: fk.from, constraint: fk.constraint });
    }
  }
  return out;
}
