/**
 * Small, pure edits of a metadata document: find a table entry, remove an object (for cascades and
 * `drop_inconsistent_metadata`), and follow renames made in the database (`run_sql` renaming a
 * tracked table or column rewrites every reference to it).
 */
import { qualifiedKey, sameName } from '../../core/index.js';
import type { QualifiedFunction, QualifiedTable } from '../../core/index.js';
import type { Metadata, NativeQueryRelationship, PermissionMetadata, RelationshipMetadata, TableMetadata } from './metadata.js';
import type { AnyPermission, PermType } from './decodePermission.js';
import { isObject } from './json.js';

export function findTable(md: Metadata, table: QualifiedTable): TableMetadata | undefined {
  return md.tables.find((t) => sameName(t.table, table));
}

export const isTracked = (md: Metadata, table: QualifiedTable): boolean => findTable(md, table) !== undefined;

export type Removable =
  | { kind: 'table'; table: QualifiedTable }
  | { kind: 'relationship'; table: QualifiedTable; name: string }
  | { kind: 'permission'; table: QualifiedTable; role: string; permType: PermType }
  | { kind: 'computed_field'; table: QualifiedTable; name: string }
  | { kind: 'event_trigger'; table: QualifiedTable; name: string }
  | { kind: 'function'; function: QualifiedFunction }
  | { kind: 'custom_types' }
  | { kind: 'action'; name: string }
  | { kind: 'remote_relationship'; table: QualifiedTable; name: string }
  | { kind: 'remote_schema'; name: string }
  | { kind: 'remote_schema_permission'; name: string; role: string }
  | { kind: 'remote_schema_remote_relationship'; remote_schema: string; type_name: string; name: string }
  | { kind: 'inherited_role'; name: string }
  | { kind: 'query_collection_query'; collection: string; query: string }
  | { kind: 'logical_model'; name: string }
  | { kind: 'logical_model_permission'; name: string; role: string }
  | { kind: 'native_query'; name: string }
  | { kind: 'source'; name: string }
  | { kind: 'source_object'; source: string; id: Removable };

/** Removes one object from `md` (in place); a no-op when it is not there. */
export function removeObject(md: Metadata, id: Removable): void {
  if (id.kind === 'source') {
    md.sources = (md.sources ?? []).filter((s) => s.name !== id.name);
    if (md.sources.length === 0) delete md.sources;
    return;
  }
  if (id.kind === 'source_object') {
    const s = (md.sources ?? []).find((x) => x.name === id.source);
    if (!s) return;
    const part: Metadata = { version: 2, tables: s.tables, functions: s.functions ?? [] };
    removeObject(part, id.id);
    s.tables = part.tables;
    if (part.functions && part.functions.length > 0) s.functions = part.functions;
    else delete s.functions;
    return;
  }
  if (id.kind === 'function') {
    md.functions = (md.functions ?? []).filter((f) => !sameName(f.function, id.function));
    return;
  }
  if (id.kind === 'custom_types') {
    delete md.custom_types;
    return;
  }
  if (id.kind === 'action') {
    md.actions = (md.actions ?? []).filter((a) => (a as { name: string }).name !== id.name);
    if (md.actions.length === 0) delete md.actions;
    return;
  }
  if (id.kind === 'table') {
    md.tables = md.tables.filter((t) => !sameName(t.table, id.table));
    return;
  }
  if (id.kind === 'inherited_role') {
    md.inherited_roles = (md.inherited_roles ?? []).filter((r) => r.role_name !== id.name);
    if (md.inherited_roles.length === 0) delete md.inherited_roles;
    return;
  }
  if (id.kind === 'query_collection_query') {
    removeCollectionQuery(md, id.collection, id.query);
    return;
  }
  if (id.kind === 'logical_model') {
    md.logical_models = (md.logical_models ?? []).filter((m) => m.name !== id.name);
    if (md.logical_models.length === 0) delete md.logical_models;
    return;
  }
  if (id.kind === 'logical_model_permission') {
    const lm = (md.logical_models ?? []).find((m) => m.name === id.name);
    if (lm) {
      lm.select_permissions = (lm.select_permissions ?? []).filter((p) => p.role !== id.role);
      if (lm.select_permissions.length === 0) delete lm.select_permissions;
    }
    return;
  }
  if (id.kind === 'native_query') {
    md.native_queries = (md.native_queries ?? []).filter((q) => q.root_field_name !== id.name);
    if (md.native_queries.length === 0) delete md.native_queries;
    return;
  }
  if (id.kind === 'remote_schema') {
    md.remote_schemas = (md.remote_schemas ?? []).filter((r) => !(isObject(r) && r.name === id.name));
    return;
  }
  if (id.kind === 'remote_schema_permission') {
    for (const r of md.remote_schemas ?? []) {
      if (!isObject(r) || r.name !== id.name || !Array.isArray(r.permissions)) continue;
      const kept = (r.permissions as unknown[]).filter((p) => !(isObject(p) && p.role === id.role));
      if (kept.length > 0) r.permissions = kept;
      else delete r.permissions;
    }
    return;
  }
  if (id.kind === 'remote_schema_remote_relationship') {
    for (const r of md.remote_schemas ?? []) {
      if (!isObject(r) || r.name !== id.remote_schema || !Array.isArray(r.remote_relationships)) continue;
      const kept = (r.remote_relationships as unknown[]).flatMap((t) => {
        if (!isObject(t) || t.type_name !== id.type_name || !Array.isArray(t.relationships)) return [t];
        const rels = (t.relationships as unknown[]).filter((x) => !(isObject(x) && x.name === id.name));
        return rels.length > 0 ? [{ ...t, relationships: rels }] : [];
      });
      if (kept.length > 0) r.remote_relationships = kept;
      else delete r.remote_relationships;
    }
    return;
  }
  const t = findTable(md, id.table);
  if (!t) return;
  switch (id.kind) {
    case 'relationship':
      t.object_relationships = (t.object_relationships ?? []).filter((r) => r.name !== id.name);
      t.array_relationships = (t.array_relationships ?? []).filter((r) => r.name !== id.name);
      return;
    case 'computed_field':
      t.computed_fields = (t.computed_fields ?? []).filter((c) => c.name !== id.name);
      return;
    case 'remote_relationship':
      t.remote_relationships = (t.remote_relationships ?? []).filter((r) => !(isObject(r) && r.name === id.name));
      return;
    case 'event_trigger':
      t.event_triggers = (t.event_triggers ?? []).filter((e) => e.name !== id.name);
      return;
    case 'permission': {
      const key = `${id.permType}_permissions` as const;
      (t as unknown as Record<string, PermissionMetadata<AnyPermission>[]>)[key] = ((t[key] ?? []) as PermissionMetadata<AnyPermission>[]).filter(
        (p) => p.role !== id.role,
      );
      return;
    }
  }
}

export function allRelationships(t: TableMetadata): RelationshipMetadata[] {
  return [...(t.object_relationships ?? []), ...(t.array_relationships ?? [])];
}

const asTable = (v: QualifiedTable | string): QualifiedTable => (typeof v === 'string' ? { schema: 'public', name: v } : v);

/** Replaces every reference to table `from` by `to` (the table entry, remote tables, `_exists`). */
export function renameTable(md: Metadata, from: QualifiedTable, to: QualifiedTable): void {
  const fix = (q: QualifiedTable | string): QualifiedTable => (sameName(asTable(q), from) ? { ...to } : asTable(q));
  for (const t of md.tables) {
    t.table = fix(t.table);
    for (const r of allRelationships(t)) {
      const u = r.using;
      if ('manual_configuration' in u) u.manual_configuration.remote_table = fix(u.manual_configuration.remote_table);
      else if (typeof u.foreign_key_constraint_on !== 'string') u.foreign_key_constraint_on.table = fix(u.foreign_key_constraint_on.table);
    }
    forEachBoolExp(t, (exp) => renameTableInBoolExp(exp, from, to));
  }
  for (const r of nativeQueryRelationships(md)) if (r.using.remote_table) r.using.remote_table = fix(r.using.remote_table);
}

/** Every relationship of every native query (to tables and to native queries). */
const nativeQueryRelationships = (md: Metadata): NativeQueryRelationship[] =>
  (md.native_queries ?? []).flatMap((n) => [...(n.object_relationships ?? []), ...(n.array_relationships ?? [])]);

/**
 * Renames column `from` → `to` of `table` everywhere the metadata names it: relationships (on both
 * sides), permissions (column lists, presets, boolean expressions, including through relationships
 * and `_exists`), custom column names.
 */
export function renameColumn(md: Metadata, table: QualifiedTable, from: string, to: string, resolve?: RelationshipResolver): void {
  resolver = resolve;
  try {
    renameColumnImpl(md, table, from, to);
  } finally {
    resolver = undefined;
  }
}

function renameColumnImpl(md: Metadata, table: QualifiedTable, from: string, to: string): void {
  const key = qualifiedKey(table);
  const ren = (c: string) => (c === from ? to : c);
  const renCols = (cols: string[] | '*' | undefined) => (Array.isArray(cols) ? cols.map(ren) : cols);
  const renKeys = <V>(o: Record<string, V> | undefined): Record<string, V> | undefined =>
    o === undefined ? o : Object.fromEntries(Object.entries(o).map(([k, v]) => [ren(k), v]));
  for (const t of md.tables) {
    const own = qualifiedKey(t.table) === key;
    for (const r of allRelationships(t)) {
      const u = r.using;
      if ('manual_configuration' in u) {
        const m = u.manual_configuration;
        const remoteIsTable = qualifiedKey(asTable(m.remote_table)) === key;
        m.column_mapping = Object.fromEntries(Object.entries(m.column_mapping).map(([l, rc]) => [own ? ren(l) : l, remoteIsTable ? ren(rc) : rc]));
      } else if (typeof u.foreign_key_constraint_on === 'string') {
        if (own) u.foreign_key_constraint_on = ren(u.foreign_key_constraint_on);
      } else if (qualifiedKey(asTable(u.foreign_key_constraint_on.table)) === key) {
        u.foreign_key_constraint_on.column = ren(u.foreign_key_constraint_on.column);
      }
    }
    if (own) {
      for (const p of t.select_permissions ?? []) p.permission.columns = renCols(p.permission.columns)!;
      for (const p of t.insert_permissions ?? []) {
        p.permission.columns = renCols(p.permission.columns);
        p.permission.set = renKeys(p.permission.set);
      }
      for (const p of t.update_permissions ?? []) {
        p.permission.columns = renCols(p.permission.columns)!;
        p.permission.set = renKeys(p.permission.set);
      }
      if (t.configuration?.custom_column_names) t.configuration.custom_column_names = renKeys(t.configuration.custom_column_names)!;
      renameColumnInRemoteRelationships(t, from, to);
      for (const e of t.event_triggers ?? []) {
        for (const op of ['insert', 'update', 'delete'] as const) {
          const spec = e.definition[op];
          if (!spec) continue;
          spec.columns = renCols(spec.columns)!;
          if (spec.payload !== undefined) spec.payload = renCols(spec.payload);
        }
      }
    }
  }
  // Native queries' relationships to the table: the mapped column.
  for (const r of nativeQueryRelationships(md)) {
    if (r.using.remote_table && qualifiedKey(r.using.remote_table) === key) {
      r.using.column_mapping = Object.fromEntries(Object.entries(r.using.column_mapping).map(([l, rc]) => [l, ren(rc)]));
    }
  }
  // Boolean expressions: rename keys that resolve to the column, following relationships.
  for (const t of md.tables) forEachBoolExpWithTable(md, t, (exp, at) => renameColumnInBoolExp(md, exp, at, table, from, to));
}

function forEachBoolExp(t: TableMetadata, f: (exp: Record<string, unknown>) => void): void {
  for (const p of t.select_permissions ?? []) f(p.permission.filter);
  for (const p of t.insert_permissions ?? []) f(p.permission.check);
  for (const p of t.update_permissions ?? []) {
    f(p.permission.filter);
    if (p.permission.check) f(p.permission.check);
  }
  for (const p of t.delete_permissions ?? []) f(p.permission.filter);
}

function forEachBoolExpWithTable(md: Metadata, t: TableMetadata, f: (exp: Record<string, unknown>, at: QualifiedTable) => void): void {
  forEachBoolExp(t, (exp) => f(exp, t.table));
}

const LOGICAL = new Set(['_and', '$and', '_or', '$or', '_not', '$not']);

function renameTableInBoolExp(exp: unknown, from: QualifiedTable, to: QualifiedTable): void {
  if (Array.isArray(exp)) return exp.forEach((e) => renameTableInBoolExp(e, from, to));
  if (!isObject(exp)) return;
  for (const [k, v] of Object.entries(exp)) {
    if ((k === '_exists' || k === '$exists') && isObject(v)) {
      const tbl = v._table;
      if ((typeof tbl === 'string' || isObject(tbl)) && sameName(asTable(tbl as QualifiedTable | string), from)) v._table = { ...to };
      renameTableInBoolExp(v._where, from, to);
    } else if (isObject(v) || Array.isArray(v)) renameTableInBoolExp(v, from, to);
  }
}

/** Resolves where relationship `name` of table `at` points (from a built schema cache). */
export type RelationshipResolver = (at: QualifiedTable, name: string) => QualifiedTable | undefined;

let resolver: RelationshipResolver | undefined;

/** Which table a relationship of `at` named `name` points to, if any. */
function relationshipTarget(md: Metadata, at: QualifiedTable, name: string): QualifiedTable | undefined {
  const fromCache = resolver?.(at, name);
  if (fromCache) return fromCache;
  const t = findTable(md, at);
  const r = t && allRelationships(t).find((x) => x.name === name);
  if (!r) return undefined;
  const u = r.using;
  if ('manual_configuration' in u) return asTable(u.manual_configuration.remote_table);
  if (typeof u.foreign_key_constraint_on !== 'string') return asTable(u.foreign_key_constraint_on.table);
  return undefined; // object FK: the target is only known from the database; column renames there are rare
}

function renameColumnInBoolExp(md: Metadata, exp: unknown, at: QualifiedTable, table: QualifiedTable, from: string, to: string): void {
  if (Array.isArray(exp)) return exp.forEach((e) => renameColumnInBoolExp(md, e, at, table, from, to));
  if (!isObject(exp)) return;
  const here = sameName(at, table);
  for (const [k, v] of Object.entries(exp)) {
    if (LOGICAL.has(k)) renameColumnInBoolExp(md, v, at, table, from, to);
    else if (k === '_exists' || k === '$exists') {
      if (isObject(v)) {
        const target = asTable((v._table ?? '') as QualifiedTable | string);
        renameColumnInBoolExp(md, v._where, target, table, from, to);
      }
    } else {
      const target = relationshipTarget(md, at, k);
      if (target) renameColumnInBoolExp(md, v, target, table, from, to);
      else if (here && k === from) {
        delete exp[k];
        exp[to] = v;
      }
      if (here && isObject(v)) {
        for (const op of ['_ceq', '$ceq', '_cne', '$cne', '_cgt', '$cgt', '_clt', '$clt', '_cge', '$cge', '_cle', '$cle']) {
          if (v[op] === from) v[op] = to;
        }
      }
    }
  }
}

/** Renames relationship `from` → `to` of `table` in every boolean expression that traverses it. */
export function renameRelationshipRefs(md: Metadata, table: QualifiedTable, from: string, to: string, resolve?: RelationshipResolver): void {
  resolver = resolve;
  try {
    for (const t of md.tables) forEachBoolExp(t, (exp) => renameKeyAt(md, exp, t.table, table, from, to));
  } finally {
    resolver = undefined;
  }
}

function renameKeyAt(md: Metadata, exp: unknown, at: QualifiedTable, table: QualifiedTable, from: string, to: string): void {
  if (Array.isArray(exp)) return exp.forEach((e) => renameKeyAt(md, e, at, table, from, to));
  if (!isObject(exp)) return;
  for (const [k, v] of Object.entries(exp)) {
    if (LOGICAL.has(k)) renameKeyAt(md, v, at, table, from, to);
    else if (k === '_exists' || k === '$exists') {
      if (isObject(v)) renameKeyAt(md, v._where, asTable((v._table ?? '') as QualifiedTable | string), table, from, to);
    } else {
      const target = relationshipTarget(md, at, k);
      if (target) renameKeyAt(md, v, target, table, from, to);
      if (sameName(at, table) && k === from) {
        delete exp[k];
        exp[to] = v;
      }
    }
  }
}

/** A renamed column in remote relationships: `hasura_fields` and `"$column"` argument references. */
function renameColumnInRemoteRelationships(t: TableMetadata, from: string, to: string): void {
  const fix = (v: unknown): unknown => {
    if (v === `$${from}`) return `$${to}`;
    if (Array.isArray(v)) return v.map(fix);
    if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fix(x)]));
    return v;
  };
  for (const r of t.remote_relationships ?? []) {
    if (!isObject(r) || !isObject(r.definition)) continue;
    const def = r.definition as Record<string, unknown>;
    // A relationship to a source's table: the mapping's key (this table's column).
    if (isObject(def.to_source)) {
      const ts = def.to_source as Record<string, unknown>;
      if (isObject(ts.field_mapping)) ts.field_mapping = Object.fromEntries(Object.entries(ts.field_mapping).map(([k, v]) => [k === from ? to : k, v]));
      continue;
    }
    const d = (isObject(def.to_remote_schema) ? def.to_remote_schema : def) as Record<string, unknown>;
    const lhs = isObject(def.to_remote_schema) ? 'lhs_fields' : 'hasura_fields';
    if (Array.isArray(d[lhs])) d[lhs] = (d[lhs] as unknown[]).map((c) => (c === from ? to : c));
    if (isObject(d.remote_field)) d.remote_field = fixTree(d.remote_field, fix);
  }
}

function fixTree(tree: Record<string, unknown>, fix: (v: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(tree).map(([k, node]) => {
    if (!isObject(node)) return [k, node];
    const out: Record<string, unknown> = { ...node, arguments: fix(node.arguments ?? {}) };
    if (isObject(node.field)) out.field = fixTree(node.field, fix);
    return [k, out];
  }));
}

/**
 * Drops query `query` of collection `collection`, and the REST endpoints that serve it (an endpoint
 * cannot name a query that is gone). Empty collections stay, as Hasura keeps them.
 */
function removeCollectionQuery(md: Metadata, collection: string, query: string): void {
  for (const c of md.query_collections ?? []) {
    if (c.name === collection) c.definition.queries = c.definition.queries.filter((q) => q.name !== query);
  }
  const served = (e: { definition: { query: { collection_name: string; query_name: string } } }) =>
    e.definition.query.collection_name === collection && e.definition.query.query_name === query;
  if (md.rest_endpoints) {
    md.rest_endpoints = md.rest_endpoints.filter((e) => !served(e));
    if (md.rest_endpoints.length === 0) delete md.rest_endpoints;
  }
}
