/**
 * Relationships from a table to a table of a source (Hasura v2's remote-source relationships,
 * `remote_relationships[].definition.to_source`), resolved once every source is built: the target
 * source is consistent, the target table tracked there, every mapped column exists on both sides,
 * and the name is free on the table. Each source's cache gets its consistent ones
 * (`SchemaCache.sourceRelationships`) and every source's cache by name (`sourceCaches`); an
 * invalid one is the inconsistent object `remote_relationship` (named with its source beside `default`).
 * The relationships of remote schemas' object types to tables (Hasura v2's remote schema remote
 * relationships) are resolved here too, on default's cache (`remoteTypeRelationships`).
 */
import { qualifiedKey } from '../core/index.js';
import type { Metadata, TableMetadata } from './model/metadata.js';
import {
  decodeTypeRelationship, remoteRelationshipsOf, remoteSchemaRelationshipsOf, remoteSchemasOf, toSource, type RemoteRelationshipMetadata,
} from './model/decodeRemoteSchema.js';
import { customTypesOf } from './model/decodeActions.js';
import type { MetadataObjectId } from './schemaCache/objects.js';
import type { InconsistentObject, RemoteSchemaInfo, RemoteTypeRelInfo, SchemaCache, SourceRelInfo, TableInfo } from './schemaCache/types.js';
import type { CustomObjectInfo, CustomRelInfo } from './schemaCache/actionTypes.js';

const DEFAULT = 'default';

const quoted = (s: string): string => JSON.stringify(s);
const dotted = (t: { schema: string; name: string }): string => (t.schema === 'public' ? t.name : `${t.schema}.${t.name}`);

/** Why `def` cannot be served from `table` (of `cache`), or undefined when it can. */
function problem(rel: { name: string }, def: NonNullable<ReturnType<typeof toSource>>, table: TableInfo, caches: ReadonlyMap<string, SchemaCache>, declared: ReadonlySet<string>): string | undefined {
  if (table.columnsByName.has(rel.name) || table.relationships.has(rel.name) || table.computedFields.has(rel.name) || table.remoteRelationships?.has(rel.name) || declared.has(rel.name)) {
    return `field with name ${quoted(rel.name)} already exists in table ${quoted(dotted(table.name))}`;
  }
  const target = caches.get(def.source);
  if (!target) return `source with name ${quoted(def.source)} does not exist or is inconsistent`;
  const info = target.tables.get(qualifiedKey(def.table));
  if (!info) return `table ${quoted(dotted(def.table))} does not exist in source ${quoted(def.source)}`;
  for (const [local, remote] of Object.entries(def.field_mapping)) {
    if (!table.columnsByName.has(local)) return `column ${quoted(local)} does not exist in table ${quoted(dotted(table.name))}`;
    if (!info.columnsByName.has(remote)) return `column ${quoted(remote)} does not exist in table ${quoted(dotted(def.table))} of source ${quoted(def.source)}`;
  }
  return undefined;
}

/** The tables' entries of source `name` in `md`. */
const tablesOf = (md: Metadata, name: string): readonly TableMetadata[] =>
  name === DEFAULT ? md.tables : (md.sources?.find((s) => s.name === name)?.tables ?? []);

/**
 * Resolves every relationship to a source's table of `md` against `caches` (every consistent
 * source's, by name) and returns the caches with them attached (new objects; `caches` untouched)
 * and the inconsistencies found.
 */
export function resolveSourceRelationships(md: Metadata, caches: ReadonlyMap<string, SchemaCache>): {
  caches: Map<string, SchemaCache>;
  inconsistent: Array<{ id: MetadataObjectId; object: InconsistentObject }>;
} {
  const out = new Map<string, SchemaCache>();
  const inconsistent: Array<{ id: MetadataObjectId; object: InconsistentObject }> = [];
  const resolved = new Map<string, Map<string, Map<string, SourceRelInfo>>>();
  for (const [name, cache] of caches) {
    const byTable = new Map<string, Map<string, SourceRelInfo>>();
    for (const tm of tablesOf(md, name)) {
      const table = cache.tables.get(qualifiedKey(tm.table));
      const seen = new Set<string>();
      for (const rel of remoteRelationshipsOf(tm)) {
        const def = toSource(rel);
        if (!def) continue;
        const reason = table ? problem(rel, def, table, caches, seen) : `table ${quoted(dotted(tm.table))} is inconsistent`;
        seen.add(rel.name);
        if (reason !== undefined) {
          const id: MetadataObjectId = { kind: 'remote_relationship', table: tm.table, name: rel.name };
          const definition = { ...(name === DEFAULT ? {} : { source: name }), name: rel.name, table: tm.table, definition: rel.definition };
          const object: InconsistentObject = {
            type: 'remote_relationship', definition, reason: `Inconsistent object: in table ${quoted(dotted(tm.table))}: in remote relationship ${quoted(rel.name)}: ${reason}`,
          };
          inconsistent.push({ id: name === DEFAULT ? id : { kind: 'source_object', source: name, id }, object });
          continue;
        }
        const key = qualifiedKey(tm.table);
        let rels = byTable.get(key);
        if (!rels) byTable.set(key, (rels = new Map()));
        rels.set(rel.name, {
          name: rel.name, source: def.source, target: def.table, type: def.relationship_type,
          mapping: Object.entries(def.field_mapping).map(([local, remote]) => ({ local, remote })),
        });
      }
    }
    if (byTable.size > 0) resolved.set(name, byTable);
  }
  for (const [name, cache] of caches) {
    const rels = resolved.get(name);
    const withActions = name === DEFAULT ? remoteTypeRelationships(md, actionRelationships(cache, caches, inconsistent), caches, inconsistent) : cache;
    out.set(name, rels ? { ...withActions, sourceRelationships: rels } : { ...withActions });
  }
  for (const c of out.values()) (c as { sourceCaches?: ReadonlyMap<string, SchemaCache> }).sourceCaches = out;
  return { caches: out, inconsistent };
}

/**
 * `cache` (default's) with the relationships of actions' output types to another source's tables
 * resolved: the target's column types filled in, an invalid one left out and reported (as Hasura
 * reports custom types: `custom_types`). New objects for what changes (the actions point at them).
 */
function actionRelationships(cache: SchemaCache, caches: ReadonlyMap<string, SchemaCache>, inconsistent: Array<{ id: MetadataObjectId; object: InconsistentObject }>): SchemaCache {
  const ct = cache.customTypes;
  if (!ct) return cache;
  const replaced = new Map<CustomObjectInfo, CustomObjectInfo>();
  for (const ob of ct.objects.values()) {
    if (!ob.relationships.some((r) => r.source !== undefined)) continue;
    const relationships: CustomRelInfo[] = [];
    for (const r of ob.relationships) {
      if (r.source === undefined) {
        relationships.push(r);
        continue;
      }
      const target = caches.get(r.source)?.tables.get(qualifiedKey(r.remoteTable));
      const missing = target && r.mapping.find((m) => !target.columnsByName.has(m.column));
      const reason = !caches.has(r.source) ? `the source ${quoted(r.source)} for relationship ${quoted(r.name)} of object type ${quoted(ob.name)} does not exist or is inconsistent`
        : !target ? `the remote table ${quoted(dotted(r.remoteTable))} for relationship ${quoted(r.name)} of object type ${quoted(ob.name)} does not exist in source ${quoted(r.source)}`
          : missing ? `the column ${quoted(missing.column)} of remote table ${quoted(dotted(r.remoteTable))} for relationship ${quoted(r.name)} of object type ${quoted(ob.name)} does not exist` : undefined;
      if (reason !== undefined) {
        inconsistent.push({ id: { kind: 'custom_types' }, object: { type: 'custom_types', definition: { object: ob.name, relationship: r.name, source: r.source }, reason: `validation for the given custom types failed because ${reason}` } });
        continue;
      }
      relationships.push({ ...r, mapping: r.mapping.map((m) => ({ ...m, pgType: target!.columnsByName.get(m.column)!.pgType })) });
    }
    replaced.set(ob, { ...ob, relationships });
  }
  if (replaced.size === 0) return cache;
  const objects = new Map([...ct.objects].map(([k, ob]) => [k, replaced.get(ob) ?? ob]));
  const actions = cache.actions && new Map([...cache.actions].map(([k, a]) => [k, a.outputObject && replaced.has(a.outputObject) ? { ...a, outputObject: replaced.get(a.outputObject)! } : a]));
  return { ...cache, customTypes: { ...ct, objects }, ...(actions ? { actions } : {}) };
}

/** Why a relationship of remote type `typeName` cannot be served, or undefined when it can. */
function typeRelProblem(
  rs: RemoteSchemaInfo | undefined, typeName: string, rel: RemoteRelationshipMetadata, seen: ReadonlySet<string>, caches: ReadonlyMap<string, SchemaCache>,
): string | undefined {
  if (!rs) return 'the remote schema is inconsistent';
  const type = rs.types.get(typeName);
  if (!type || type.kind !== 'OBJECT') return `object type ${quoted(typeName)} does not exist in the remote schema`;
  if (type.fields.some((f) => f.name === rel.name) || seen.has(rel.name)) return `field with name ${quoted(rel.name)} already exists in type ${quoted(typeName)}`;
  const def = toSource(rel);
  if (!def) return 'relationships from a remote schema\'s type to another remote schema (to_remote_schema) are not supported: relate the type to a table (to_source)';
  const target = caches.get(def.source);
  if (!target) return `source with name ${quoted(def.source)} does not exist or is inconsistent`;
  const info = target.tables.get(qualifiedKey(def.table));
  if (!info) return `table ${quoted(dotted(def.table))} does not exist in source ${quoted(def.source)}`;
  for (const [local, column] of Object.entries(def.field_mapping)) {
    const field = type.fields.find((f) => f.name === local);
    if (!field) return `field ${quoted(local)} does not exist in type ${quoted(typeName)}`;
    let t = field.type;
    while (t.kind === 'NON_NULL' || t.kind === 'LIST') {
      if (t.kind === 'LIST') return `field ${quoted(local)} of type ${quoted(typeName)} is a list: a join field must be a scalar`;
      t = t.ofType;
    }
    const named = rs.types.get(t.name);
    if (named && named.kind !== 'SCALAR' && named.kind !== 'ENUM') return `field ${quoted(local)} of type ${quoted(typeName)} is not a scalar`;
    if (field.args.some((a) => a.type.kind === 'NON_NULL' && a.defaultValue == null)) return `field ${quoted(local)} of type ${quoted(typeName)} has required arguments`;
    if (!info.columnsByName.has(column)) return `column ${quoted(column)} does not exist in table ${quoted(dotted(def.table))} of source ${quoted(def.source)}`;
  }
  return undefined;
}

/**
 * `cache` (default's) with the relationships of the remote schemas' types to tables resolved
 * (`remoteTypeRelationships`): the remote consistent, the type an object type of it, the name free
 * on it, the join fields scalar fields of it, the target table tracked and its columns there. An
 * invalid one is left out and reported (`remote_schema_remote_relationship`).
 */
function remoteTypeRelationships(
  md: Metadata, cache: SchemaCache, caches: ReadonlyMap<string, SchemaCache>, inconsistent: Array<{ id: MetadataObjectId; object: InconsistentObject }>,
): SchemaCache {
  const out = new Map<string, Map<string, RemoteTypeRelInfo[]>>();
  for (const rsm of remoteSchemasOf(md)) {
    const rs = cache.remoteSchemas?.get(rsm.name);
    const seen = new Map<string, Set<string>>();
    for (const { typeName, rel: raw } of remoteSchemaRelationshipsOf(rsm)) {
      let rel: RemoteRelationshipMetadata | undefined;
      let reason: string | undefined;
      try {
        rel = decodeTypeRelationship(raw, '$');
      } catch (e) {
        reason = (e as Error).message;
      }
      const names = seen.get(typeName) ?? new Set<string>();
      seen.set(typeName, names);
      if (rel) reason = typeRelProblem(rs, typeName, rel, names, caches);
      const name = rel?.name ?? String((raw as { name?: unknown } | null)?.name ?? '');
      names.add(name);
      if (reason !== undefined || !rel) {
        inconsistent.push({
          id: { kind: 'remote_schema_remote_relationship', remote_schema: rsm.name, type_name: typeName, name },
          object: {
            type: 'remote_schema_remote_relationship',
            definition: { remote_schema: rsm.name, type_name: typeName, name, definition: (raw as { definition?: unknown } | null)?.definition ?? null },
            reason: `Inconsistent object: in remote schema ${quoted(rsm.name)}: in type ${quoted(typeName)}: in remote relationship ${quoted(name)}: ${reason}`,
          },
        });
        continue;
      }
      const def = toSource(rel)!;
      let byType = out.get(rsm.name);
      if (!byType) out.set(rsm.name, (byType = new Map()));
      const list = byType.get(typeName) ?? [];
      list.push({
        name: rel.name, remoteSchema: rsm.name, typeName, source: def.source, target: def.table, type: def.relationship_type,
        mapping: Object.entries(def.field_mapping).map(([local, remote]) => ({ local, remote })),
      });
      byType.set(typeName, list);
    }
  }
  return out.size > 0 ? { ...cache, remoteTypeRelationships: out } : cache;
}

/**
 * Whether `md` has any relationship to a source's table (from a table, from an action's output type
 * to another source, or from a remote schema's type).
 */
export const hasSourceRelationships = (md: Metadata): boolean =>
  [md.tables, ...(md.sources ?? []).map((s) => s.tables)].some((tables) => tables.some((t) => remoteRelationshipsOf(t).some((r) => toSource(r) !== undefined)))
  || (customTypesOf(md).objects ?? []).some((o) => (o.relationships ?? []).some((r) => r.source !== undefined && r.source !== DEFAULT))
  || remoteSchemasOf(md).some((rs) => remoteSchemaRelationshipsOf(rs).length > 0);
