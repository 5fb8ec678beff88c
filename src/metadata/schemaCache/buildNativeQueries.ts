/**
 * Hasura v2's logical models and native queries → schema-cache entries. A logical model becomes a
 * `TableInfo` with no database table behind it (its fields are the columns, no keys, no mutations),
 * so the GraphQL types, boolean expressions, ordering and select permissions of tables serve it
 * unchanged; its name is `{schema: "", name}` (no tracked table has an empty schema). A native query
 * is its code split at the `{{arg}}` placeholders, checked against its arguments and its model.
 * The SQL itself is checked by Postgres when it is tracked (metadataApi/ops/nativeQueries.ts).
 * A field whose type is another logical model is no column: a native query returning the model
 * serves it through a relationship of that name (as Hasura v2 does for Postgres).
 * Relationships of a native query lead to tracked tables or to other native queries
 * (`resolveNativeQueryRelationships`).
 */
import { qualifiedKey } from '../../core/index.js';
import type { LogicalModelMetadata, Metadata, NativeQueryMetadata, NativeQueryRelationship } from '../model/metadata.js';
import { fieldUdt, modelReference, splitNativeCode, udtName } from '../model/decodeNativeQueries.js';
import type { ColumnInfo, NativeQueryInfo, NativeQueryRelInfo, TableInfo } from './types.js';
import type { DepRef, MetadataObjectId, SchemaRef } from './objects.js';
import { BuildError, quoted, quotedTable } from './buildState.js';

export const logicalModelTable = (name: string): { schema: string; name: string } => ({ schema: '', name });

/** The logical model as a table without permissions (see buildSchemaCache for those). */
export function buildLogicalModel(lm: LogicalModelMetadata): TableInfo {
  const columns: ColumnInfo[] = lm.fields.filter((f) => !modelReference(f.type)).map((f, i) => {
    const pgType = fieldUdt(f.type);
    return {
      name: f.name,
      gqlName: f.name,
      pgType,
      pgTypeSchema: 'pg_catalog',
      typeKind: 'b',
      isArray: pgType.startsWith('_'),
      nullable: f.type.nullable !== false,
      hasDefault: false,
      isGenerated: false,
      isIdentity: false,
      position: i + 1,
      description: f.description ?? null,
    };
  });
  return {
    name: logicalModelTable(lm.name),
    gqlName: lm.name,
    kind: 'view',
    description: lm.description ?? null,
    columns,
    columnsByName: new Map(columns.map((c) => [c.name, c])),
    primaryKey: null,
    uniqueConstraints: [],
    primaryKeyConstraint: null,
    foreignKeys: [],
    relationships: new Map(),
    computedFields: new Map(),
    permissions: new Map(),
    isEnum: false,
    customRootFields: {},
    customColumnNames: {},
    mutability: { insertable: false, updatable: false, deletable: false },
  };
}

/** The native query checked against its arguments and the logical models built so far. */
export function resolveNativeQuery(nq: NativeQueryMetadata, models: ReadonlyMap<string, TableInfo>): NativeQueryInfo {
  if (!models.has(nq.returns)) throw new BuildError(`logical model ${quoted(nq.returns)} not found`);
  const code = splitNativeCode(nq.code);
  const used = new Set(code.flatMap((p) => ('arg' in p ? [p.arg] : [])));
  const undeclared = [...used].filter((a) => !Object.hasOwn(nq.arguments, a));
  if (undeclared.length > 0) throw new BuildError(`undeclared arguments: ${undeclared.map(quoted).join(', ')}`);
  const args = Object.entries(nq.arguments).map(([name, a]) => ({
    name,
    pgType: udtName(a.type, '$'),
    nullable: a.nullable === true,
    description: a.description ?? null,
  }));
  return { rootFieldName: nq.root_field_name, description: nq.description ?? null, code, arguments: args, returns: nq.returns };
}

/** The logical models a model's fields refer to must exist (they may refer to each other, and to the model itself). */
export function checkModelReferences(lm: LogicalModelMetadata, models: ReadonlySet<string>): void {
  for (const f of lm.fields) {
    const ref = modelReference(f.type);
    if (ref && !models.has(ref.model)) throw new BuildError(`field ${quoted(f.name)}: logical model ${quoted(ref.model)} not found`);
  }
}

/**
 * The relationships of a native query, checked against its logical model, the tracked tables and
 * the native queries that are consistent so far (`queries`, with the models they return): the
 * target exists, the mapped fields and columns exist, names are new, and every field of the model
 * whose type is a logical model has a relationship of that name and kind.
 */
export function resolveNativeQueryRelationships(
  nq: NativeQueryMetadata,
  lm: LogicalModelMetadata,
  models: ReadonlyMap<string, TableInfo>,
  tables: ReadonlyMap<string, TableInfo>,
  queries: ReadonlyMap<string, NativeQueryMetadata>,
): { relationships: NativeQueryRelInfo[]; dependencies: SchemaRef[] } {
  const local = models.get(nq.returns)!;
  const relationships: NativeQueryRelInfo[] = [];
  const dependencies: SchemaRef[] = [];
  const one = (r: NativeQueryRelationship, type: 'object' | 'array'): NativeQueryRelInfo => {
    const at = `in ${type} relationship ${quoted(r.name)}: `;
    if (local.columnsByName.has(r.name)) throw new BuildError(`${at}the logical model ${quoted(lm.name)} has a field of that name`);
    let remote: TableInfo;
    let target: NativeQueryRelInfo['target'];
    if (r.using.remote_table) {
      const t = tables.get(qualifiedKey(r.using.remote_table));
      if (!t) throw new BuildError(`${at}table ${quotedTable(r.using.remote_table)} is not tracked`);
      remote = t;
      target = { kind: 'table', table: t.name };
      dependencies.push({ kind: 'table', table: t.name });
    } else {
      const name = r.using.remote_native_query!;
      const other = queries.get(name);
      const model = other && models.get(other.returns);
      if (!other || !model) throw new BuildError(`${at}native query ${quoted(name)} not found`);
      remote = model;
      target = { kind: 'native_query', name };
    }
    const mapping = Object.entries(r.using.column_mapping).map(([l, rc]) => {
      if (!local.columnsByName.has(l)) throw new BuildError(`${at}field ${quoted(l)} of logical model ${quoted(lm.name)} not found`);
      if (!remote.columnsByName.has(rc)) {
        throw new BuildError(target.kind === 'table' ? `${at}column ${quoted(rc)} of table ${quotedTable(remote.name)} not found` : `${at}field ${quoted(rc)} of native query ${quoted(target.name)} not found`);
      }
      if (target.kind === 'table') dependencies.push({ kind: 'column', table: target.table, column: rc });
      return { local: l, remote: rc };
    });
    return { name: r.name, type, target, join: { remoteTable: remote.name, mapping }, comment: r.comment ?? null };
  };
  for (const r of nq.object_relationships ?? []) relationships.push(one(r, 'object'));
  for (const r of nq.array_relationships ?? []) relationships.push(one(r, 'array'));
  for (const f of lm.fields) {
    const ref = modelReference(f.type);
    if (!ref) continue;
    const rel = relationships.find((x) => x.name === f.name);
    if (!rel) throw new BuildError(`field ${quoted(f.name)} of logical model ${quoted(lm.name)} is of a logical model type: the native query needs an ${ref.kind} relationship of that name`);
    if (rel.type !== ref.kind) throw new BuildError(`field ${quoted(f.name)} of logical model ${quoted(lm.name)} needs an ${ref.kind} relationship, not an ${rel.type} one`);
    if (rel.target.kind === 'native_query') {
      const returns = queries.get(rel.target.name)!.returns;
      if (returns !== ref.model) throw new BuildError(`in ${rel.type} relationship ${quoted(rel.name)}: native query ${quoted(rel.target.name)} returns ${quoted(returns)}, not ${quoted(ref.model)}`);
    }
  }
  return { relationships, dependencies };
}

/**
 * Every consistent native query, by root field name. A native query is left out (recorded as
 * inconsistent) when its code, arguments or model do not fit, or when a relationship does not
 * resolve; relationships to native queries are checked until nothing changes, so a query whose
 * target was left out is left out too.
 */
export function buildNativeQueries(
  metadata: Metadata,
  models: ReadonlyMap<string, TableInfo>,
  tables: ReadonlyMap<string, TableInfo>,
  record: (id: MetadataObjectId, type: string, definition: unknown, reason: string) => void,
  addDeps: (dependent: MetadataObjectId, deps: DepRef[]) => void,
): Map<string, NativeQueryInfo> {
  const fail = (nq: NativeQueryMetadata, e: unknown) => {
    if (!(e instanceof BuildError)) throw e;
    record({ kind: 'native_query', name: nq.root_field_name }, 'native_query', { source: 'default', ...nq }, `in native query ${quoted(nq.root_field_name)}: ${e.message}`);
  };
  const lms = new Map((metadata.logical_models ?? []).map((m) => [m.name, m]));
  const base = new Map<string, { nq: NativeQueryMetadata; info: NativeQueryInfo }>();
  for (const nq of metadata.native_queries ?? []) {
    try {
      base.set(nq.root_field_name, { nq, info: resolveNativeQuery(nq, models) });
    } catch (e) {
      fail(nq, e);
    }
  }
  const candidates = new Map([...base].map(([k, v]) => [k, v.nq]));
  let resolved = new Map<string, { info: NativeQueryInfo; deps: SchemaRef[] }>();
  for (let changed = true; changed;) {
    changed = false;
    resolved = new Map();
    for (const [name, { nq, info }] of base) {
      if (!candidates.has(name)) continue;
      try {
        const r = resolveNativeQueryRelationships(nq, lms.get(nq.returns)!, models, tables, candidates);
        resolved.set(name, { info: r.relationships.length > 0 ? { ...info, relationships: r.relationships } : info, deps: r.dependencies });
      } catch (e) {
        fail(nq, e);
        candidates.delete(name);
        changed = true;
      }
    }
  }
  const out = new Map<string, NativeQueryInfo>();
  for (const [name, { info, deps }] of resolved) {
    out.set(name, info);
    if (deps.length > 0) addDeps({ kind: 'native_query', name }, deps.map((on) => ({ on })));
  }
  return out;
}
