/**
 * Hasura v2's logical models and native queries → schema-cache entries. A logical model becomes a
 * `TableInfo` with no database table behind it (its fields are the columns, no keys, no mutations),
 * so the GraphQL types, boolean expressions, ordering and select permissions of tables serve it
 * unchanged; its name is `{schema: "", name}` (no tracked table has an empty schema). A native query
 * is its code split at the `{{arg}}` placeholders, checked against its arguments and its model.
 * The SQL itself is checked by Postgres when it is tracked (metadataApi/ops/nativeQueries.ts).
 */
import type { LogicalModelMetadata, NativeQueryMetadata } from '../model/metadata.js';
import { fieldUdt, splitNativeCode, udtName } from '../model/decodeNativeQueries.js';
import type { ColumnInfo, NativeQueryInfo, TableInfo } from './types.js';
import { BuildError, quoted } from './buildState.js';

export const logicalModelTable = (name: string): { schema: string; name: string } => ({ schema: '', name });

/** The logical model as a table without permissions (see buildSchemaCache for those). */
export function buildLogicalModel(lm: LogicalModelMetadata): TableInfo {
  const columns: ColumnInfo[] = lm.fields.map((f, i) => {
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
