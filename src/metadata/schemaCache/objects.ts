/**
 * Identities of metadata objects (a table, a relationship, a permission...) and of the database
 * objects they depend on. The build records `Dependency` edges between them; `run_sql` and
 * `untrack_table` use the edges to refuse (or cascade) drops, the way Hasura's dependency map does.
 */
import { qualifiedKey } from '../../core/index.js';
import type { QualifiedFunction, QualifiedTable } from '../../core/index.js';
import type { PermType } from '../model/decodePermission.js';

export type MetadataObjectId =
  | { kind: 'table'; table: QualifiedTable }
  | { kind: 'relationship'; table: QualifiedTable; name: string; relType: 'object' | 'array' }
  | { kind: 'permission'; table: QualifiedTable; role: string; permType: PermType }
  | { kind: 'computed_field'; table: QualifiedTable; name: string }
  | { kind: 'event_trigger'; table: QualifiedTable; name: string }
  | { kind: 'function'; function: QualifiedFunction }
  | { kind: 'custom_types' }
  | { kind: 'action'; name: string }
  | { kind: 'remote_relationship'; table: QualifiedTable; name: string }
  | { kind: 'remote_schema'; name: string }
  | { kind: 'remote_schema_permission'; name: string; role: string }
  /** A relationship of a remote schema's type (`remote_schemas[].remote_relationships`). */
  | { kind: 'remote_schema_remote_relationship'; remote_schema: string; type_name: string; name: string }
  | { kind: 'inherited_role'; name: string }
  | { kind: 'query_collection_query'; collection: string; query: string }
  | { kind: 'logical_model'; name: string }
  | { kind: 'logical_model_permission'; name: string; role: string }
  | { kind: 'native_query'; name: string }
  /** A Postgres source beside `default` (its connection), and an object of one (`id` as in `default`). */
  | { kind: 'source'; name: string }
  | { kind: 'source_object'; source: string; id: MetadataObjectId };

/** What a metadata object can depend on. */
export type SchemaRef =
  | { kind: 'table'; table: QualifiedTable }
  | { kind: 'column'; table: QualifiedTable; column: string }
  | { kind: 'relationship'; table: QualifiedTable; name: string }
  | { kind: 'constraint'; table: QualifiedTable; name: string }
  | { kind: 'computed_field'; table: QualifiedTable; name: string }
  | { kind: 'function'; function: QualifiedFunction };

export interface Dependency {
  dependent: MetadataObjectId;
  on: SchemaRef;
  /** The dependent compares the column with typed values: a type change breaks it. */
  onType?: boolean;
}

/** An edge target with its kind of use, as the build steps report them. */
export interface DepRef {
  on: SchemaRef;
  onType?: boolean;
}

/**
 * The tables other than `self` that the edges `deps` (one table's edges, as a build keeps them) point at,
 * memoised per edge list: an incremental build keeps the unchanged tables' lists, so this is computed once per list.
 */
export function edgeTargets(deps: readonly Dependency[], self: string): ReadonlySet<string> {
  let out = targetsMemo.get(deps);
  if (!out) {
    const set = new Set<string>();
    for (const d of deps) {
      if (d.on.kind === 'function') continue;
      const k = qualifiedKey(d.on.table);
      if (k !== self) set.add(k);
    }
    targetsMemo.set(deps, (out = set));
  }
  return out;
}
const targetsMemo = new WeakMap<readonly Dependency[], ReadonlySet<string>>();

/** Stable key of a metadata object (for maps and set differences). */
export function objectKey(id: MetadataObjectId): string {
  switch (id.kind) {
    case 'table':
      return `table:${qualifiedKey(id.table)}`;
    case 'relationship':
      return `rel:${qualifiedKey(id.table)}:${id.name}`;
    case 'permission':
      return `perm:${qualifiedKey(id.table)}:${id.role}:${id.permType}`;
    case 'computed_field':
      return `cf:${qualifiedKey(id.table)}:${id.name}`;
    case 'event_trigger':
      return `et:${id.name}`;
    case 'function':
      return `fn:${qualifiedKey(id.function)}`;
    case 'custom_types':
      return 'custom_types';
    case 'action':
      return `action:${id.name}`;
    case 'remote_relationship':
      return `rrel:${qualifiedKey(id.table)}:${id.name}`;
    case 'remote_schema':
      return `rs:${id.name}`;
    case 'remote_schema_permission':
      return `rsp:${id.name}\u0000${id.role}`;
    case 'remote_schema_remote_relationship':
      return `rsrel:${JSON.stringify([id.remote_schema, id.type_name, id.name])}`;
    case 'inherited_role':
      return `ir:${id.name}`;
    case 'query_collection_query':
      return `qc:${JSON.stringify([id.collection, id.query])}`;
    case 'logical_model':
      return `lm:${id.name}`;
    case 'logical_model_permission':
      return `lmp:${JSON.stringify([id.name, id.role])}`;
    case 'native_query':
      return `nq:${id.name}`;
    case 'source':
      return `src:${id.name}`;
    case 'source_object':
      return `src:${id.source}:${objectKey(id.id)}`;
  }
}

export function refKey(ref: SchemaRef): string {
  switch (ref.kind) {
    case 'table':
      return `table:${qualifiedKey(ref.table)}`;
    case 'column':
      return `col:${qualifiedKey(ref.table)}:${ref.column}`;
    case 'relationship':
      return `rel:${qualifiedKey(ref.table)}:${ref.name}`;
    case 'constraint':
      return `con:${qualifiedKey(ref.table)}:${ref.name}`;
    case 'computed_field':
      return `cf:${qualifiedKey(ref.table)}:${ref.name}`;
    case 'function':
      return `fn:${qualifiedKey(ref.function)}`;
  }
}

/** Hasura prints names without the `public.` prefix: `author`, `hge_tests.resident`. */
const dotted = (q: QualifiedTable): string => (q.schema === 'public' ? q.name : `${q.schema}.${q.name}`);

/** How a dependent object is named in "cannot drop due to the following dependent objects: …". */
export function reportObject(id: MetadataObjectId): string {
  switch (id.kind) {
    case 'table':
      return `table ${dotted(id.table)}`;
    case 'relationship':
      return `relationship ${dotted(id.table)}.${id.name}`;
    case 'permission':
      return `permission ${dotted(id.table)}.${id.role}.${id.permType}`;
    case 'computed_field':
      return `computed field ${dotted(id.table)}.${id.name}`;
    case 'event_trigger':
      return `event-trigger ${dotted(id.table)}.${id.name}`;
    case 'function':
      return `function ${dotted(id.function)}`;
    case 'custom_types':
      return 'custom_types';
    case 'action':
      return `action ${id.name}`;
    case 'remote_relationship':
      return `remote_relationship ${dotted(id.table)}.${id.name}`;
    case 'remote_schema':
      return `remote_schema ${id.name}`;
    case 'remote_schema_permission':
      return `remote_schema_permission ${id.name}.${id.role}`;
    case 'remote_schema_remote_relationship':
      return `remote_schema_remote_relationship ${id.remote_schema}.${id.type_name}.${id.name}`;
    case 'inherited_role':
      return `inherited_role ${id.name}`;
    case 'query_collection_query':
      return `query_collections ${id.query} in ${id.collection}`;
    case 'logical_model':
      return `logical_model ${id.name}`;
    case 'logical_model_permission':
      return `logical_model_permission ${id.name}.${id.role}.select`;
    case 'native_query':
      return `native_query ${id.name}`;
    case 'source':
      return `source ${id.name}`;
    case 'source_object':
      return `${reportObject(id.id)} in source ${id.source}`;
  }
}

/** The table an object belongs to, when it is part of one. */
export function objectTable(id: MetadataObjectId): QualifiedTable | undefined {
  return 'table' in id ? id.table : undefined;
}

/** Joined, sorted report of dependents, as Hasura's `reportSchemaObjs`. */
export function reportObjects(ids: readonly MetadataObjectId[]): string {
  return [...new Set(ids.map(reportObject))].sort().join(', ');
}
