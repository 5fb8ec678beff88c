/**
 * The `definition` JSON of inconsistent objects, in the shapes Hasura v1.3 reports them
 * (`get_inconsistent_metadata`, and `internal` of metadata errors).
 */
import type { QualifiedTable } from '../../core/index.js';
import type { ComputedFieldMetadata, FunctionMetadata, PermissionMetadata, RelationshipMetadata } from '../model/metadata.js';
import type { AnyPermission, PermType } from '../model/decodePermission.js';
import { encodePermissionBodyFull, encodeRelUsing } from '../model/encodeMetadata.js';
import { tableJson } from './buildState.js';

export const tableDefinition = (t: QualifiedTable) => tableJson(t);

export function relationshipDefinition(table: QualifiedTable, r: RelationshipMetadata) {
  return { using: encodeRelUsing(r.using), name: r.name, comment: r.comment ?? null, table: tableJson(table) };
}

export function permissionDefinition(table: QualifiedTable, type: PermType, p: PermissionMetadata<AnyPermission>) {
  return { role: p.role, comment: p.comment ?? null, permission: encodePermissionBodyFull(type, p.permission), table: tableJson(table) };
}

export function computedFieldDefinition(table: QualifiedTable, cf: ComputedFieldMetadata) {
  const fn = typeof cf.definition.function === 'string' ? { schema: 'public', name: cf.definition.function } : cf.definition.function;
  const definition: Record<string, unknown> = { function: tableJson(fn), table_argument: cf.definition.table_argument ?? null };
  if (cf.definition.session_argument != null) definition.session_argument = cf.definition.session_argument;
  return { definition, name: cf.name, comment: cf.comment ?? null, table: tableJson(table) };
}

export function functionDefinition(f: FunctionMetadata) {
  return tableJson(f.function);
}
