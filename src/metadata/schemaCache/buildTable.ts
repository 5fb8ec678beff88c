/**
 * Tracked table metadata + its introspected relation → `TableInfo` (columns, keys, custom names,
 * enum values), or the reason it is inconsistent. Relationships, computed fields and permissions
 * are filled in by later build steps; enum references once every table is known.
 */
import { graphqlName, qualifiedKey } from '../../core/index.js';
import type { TableMetadata } from '../model/metadata.js';
import type { DbTable } from '../introspection/types.js';
import type { ColumnInfo, TableInfo } from './types.js';
import { BuildError, quoted, quotedTable, type BuildState } from './buildState.js';
import { duplicateValues } from '../../lib/index.js';

/** Builds the base TableInfo; throws BuildError with Hasura's reason when it cannot. */
export function buildTableInfo(state: BuildState, tm: TableMetadata): TableInfo {
  const db = state.snapshot.tables.get(qualifiedKey(tm.table));
  if (!db) throw new BuildError(`no such table/view exists in postgres: ${quotedTable(tm.table)}`);
  const customNames = tm.configuration?.custom_column_names ?? {};
  validateCustomColumnNames(db, customNames);
  const columns: ColumnInfo[] = db.columns.map((c) => ({
    name: c.name,
    gqlName: customNames[c.name] ?? c.name,
    pgType: c.type,
    pgTypeSchema: c.typeSchema,
    typeKind: c.typeKind,
    isArray: c.isArray,
    ...(c.enumLabels ? { enumLabels: c.enumLabels } : {}),
    nullable: c.nullable,
    hasDefault: c.hasDefault,
    isGenerated: c.isGenerated,
    isIdentity: c.isIdentity,
    position: c.position,
    description: c.comment,
  }));
  const info: TableInfo = {
    name: { schema: tm.table.schema, name: tm.table.name },
    gqlName: graphqlName(tm.table),
    kind: db.kind,
    description: db.comment,
    columns,
    columnsByName: new Map(columns.map((c) => [c.name, c])),
    primaryKey: db.primaryKey ? [...db.primaryKey.columns] : null,
    uniqueConstraints: db.uniqueConstraints.map((u) => ({ name: u.name, columns: [...u.columns] })),
    primaryKeyConstraint: db.primaryKey?.name ?? null,
    foreignKeys: db.foreignKeys.map((f) => ({ name: f.name, columns: [...f.columns], refTable: { ...f.refTable }, refColumns: [...f.refColumns] })),
    relationships: new Map(),
    computedFields: new Map(),
    permissions: new Map(),
    isEnum: !!tm.is_enum,
    customRootFields: { ...(tm.configuration?.custom_root_fields ?? {}) },
    customColumnNames: { ...customNames },
    mutability: { insertable: db.insertable, updatable: db.updatable, deletable: db.deletable },
    sessionFreeWrites: db.sessionFreeWrites === true && (tm.event_triggers ?? []).length === 0,
  };
  if (tm.is_enum) {
    const values = state.snapshot.enumValues.get(qualifiedKey(tm.table));
    if (!values) throw new BuildError(`the table ${quotedTable(tm.table)} cannot be used as an enum because its values could not be read`);
    if (!values.ok) throw new BuildError(values.reason);
    info.enumValues = values.values.map((v) => ({ ...v }));
  }
  return info;
}

function validateCustomColumnNames(db: DbTable, names: Record<string, string>): void {
  const columnNames = new Set(db.columns.map((c) => c.name));
  for (const [column, custom] of Object.entries(names)) {
    if (!columnNames.has(column)) throw new BuildError(`column ${quoted(column)} does not exist`);
    if (custom !== column && columnNames.has(custom)) {
      throw new BuildError(`column/relationship ${quoted(custom)} of table ${quotedTable(db)} already exists`);
    }
  }
  const values = Object.values(names);
  const dups = duplicateValues(values);
  if (dups.length > 0) throw new BuildError(`the following names are duplicated: ${dups.map(quoted).join(', ')}`);
}

/**
 * Marks columns that reference an enum table (single-column foreign key to its primary key),
 * as Hasura's `resolveEnumReferences`: of every table, or of `only` these (an incremental build's new ones).
 */
export function resolveEnumReferences(tables: Map<string, TableInfo>, only?: Iterable<TableInfo>): void {
  for (const t of only ?? tables.values()) {
    for (const fk of t.foreignKeys) {
      if (fk.columns.length !== 1) continue;
      const target = tables.get(qualifiedKey(fk.refTable));
      if (!target?.isEnum || !target.primaryKey || target.primaryKey.length !== 1 || target.primaryKey[0] !== fk.refColumns[0]) continue;
      const col = t.columnsByName.get(fk.columns[0]);
      if (col) col.enumTable = { ...target.name };
    }
  }
}
