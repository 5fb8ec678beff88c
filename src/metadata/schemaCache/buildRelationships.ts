/**
 * Relationship metadata → `RelationshipInfo` (the join columns), checked against the database:
 *   object, foreign_key_constraint_on: "col"          → the FK on that local column
 *   array,  foreign_key_constraint_on: {table, column} → the FK on the remote column pointing here
 *   object, foreign_key_constraint_on: {table, column} → the same, one row (Hasura v2: a one-to-one)
 *   manual_configuration {remote_table, column_mapping} → the mapping as given
 * The remote table must be tracked. Failures are BuildErrors carrying Hasura's reason.
 */
import { qualifiedKey } from '../../core/index.js';
import type { QualifiedTable } from '../../core/index.js';
import type { RelationshipMetadata } from '../model/metadata.js';
import type { RelationshipInfo, TableInfo } from './types.js';
import type { SchemaRef } from './objects.js';
import { BuildError, quoted, quotedTable, type BuildState } from './buildState.js';

export const NO_FK = 'no foreign constraint exists on the given column';
export const MANY_FK = 'more than one foreign key constraint exists on the given column';

export interface ResolvedRelationship {
  info: RelationshipInfo;
  dependencies: SchemaRef[];
}

const asTable = (t: QualifiedTable | string): QualifiedTable => (typeof t === 'string' ? { schema: 'public', name: t } : t);

/** The tracked remote table, or why it cannot be used. */
export function remoteTableInfo(state: Pick<BuildState, 'tables' | 'snapshot'>, q: QualifiedTable): TableInfo {
  const info = state.tables.get(qualifiedKey(q));
  if (info) return info;
  if (state.snapshot.tables.has(qualifiedKey(q))) throw new BuildError(`table ${quotedTable(q)} is not tracked`);
  throw new BuildError(`table ${quotedTable(q)} does not exist`);
}

function assertColumn(table: TableInfo, column: string): void {
  if (!table.columnsByName.has(column)) throw new BuildError(`column ${quoted(column)} does not exist`);
}

/** Resolves one relationship of `table`; throws BuildError. */
export function resolveRelationship(
  state: Pick<BuildState, 'tables' | 'snapshot'>,
  table: TableInfo,
  type: 'object' | 'array',
  rel: RelationshipMetadata,
): ResolvedRelationship {
  const using = rel.using;
  const comment = rel.comment ?? null;
  const mk = (remoteTable: QualifiedTable, mapping: Array<{ local: string; remote: string }>, manual = false): RelationshipInfo => ({
    name: rel.name,
    type,
    join: { remoteTable: { ...remoteTable }, mapping },
    comment,
    insertOrder: type === 'object' ? 'before_parent' : 'after_parent',
    ...(manual ? { manual: true } : {}),
  });

  if ('manual_configuration' in using) {
    const remoteName = asTable(using.manual_configuration.remote_table);
    const remote = remoteTableInfo(state, remoteName);
    const pairs = Object.entries(using.manual_configuration.column_mapping);
    const deps: SchemaRef[] = [{ kind: 'table', table: remoteName }];
    for (const [local, remoteCol] of pairs) {
      assertColumn(table, local);
      assertColumn(remote, remoteCol);
      deps.push({ kind: 'column', table: table.name, column: local }, { kind: 'column', table: remoteName, column: remoteCol });
    }
    return { info: mk(remoteName, pairs.map(([local, r]) => ({ local, remote: r })), true), dependencies: deps };
  }

  const fkOn = using.foreign_key_constraint_on;
  if (typeof fkOn === 'string') {
    if (type !== 'object') throw new BuildError('expecting an object for foreign_key_constraint_on of an array relationship');
    const fks = table.foreignKeys.filter((fk) => fk.columns.length === 1 && fk.columns[0] === fkOn);
    if (fks.length === 0) throw new BuildError(NO_FK);
    if (fks.length > 1) throw new BuildError(MANY_FK);
    const fk = fks[0];
    remoteTableInfo(state, fk.refTable);
    return {
      info: mk(fk.refTable, [{ local: fkOn, remote: fk.refColumns[0] }]),
      dependencies: [
        { kind: 'constraint', table: table.name, name: fk.name },
        { kind: 'column', table: table.name, column: fkOn },
        { kind: 'table', table: fk.refTable },
      ],
    };
  }

  const remoteName = asTable(fkOn.table);
  const remote = remoteTableInfo(state, remoteName);
  const fks = remote.foreignKeys.filter(
    (fk) => fk.columns.length === 1 && fk.columns[0] === fkOn.column && qualifiedKey(fk.refTable) === qualifiedKey(table.name),
  );
  if (fks.length === 0) throw new BuildError(NO_FK);
  if (fks.length > 1) throw new BuildError(MANY_FK);
  const fk = fks[0];
  return {
    info: mk(remoteName, [{ local: fk.refColumns[0], remote: fkOn.column }]),
    dependencies: [
      { kind: 'table', table: remoteName },
      { kind: 'column', table: remoteName, column: fkOn.column },
      { kind: 'constraint', table: remoteName, name: fk.name },
    ],
  };
}

/**
 * Why a relationship or computed field named `name` clashes with a column's GraphQL field name
 * (Hasura reports these reasons without the "in table …" context), or undefined.
 */
export function columnConflict(table: TableInfo, name: string): string | undefined {
  const col = table.columns.find((c) => c.gqlName === name);
  if (!col) return undefined;
  if (col.gqlName !== col.name) return `field definition conflicts with custom field name for postgres column ${quoted(col.name)}`;
  return 'field definition conflicts with postgres column';
}
