/**
 * What one role may select from one table: the columns, the row filter, the row limit, whether
 * aggregations are allowed, and which relationships lead to tables it may also select. Admin
 * sees everything unfiltered. Both the schema builder and the planner read this, so a field is
 * in the schema exactly when the planner can plan it.
 */
import { TRUE, type BoolExp } from '../../ir/index.js';
import { qualifiedKey, ADMIN_ROLE } from '../../core/index.js';
import type { ColumnInfo, ComputedFieldInfo, RelationshipInfo, SchemaCache, TableInfo } from '../../metadata/index.js';

export interface SelectView {
  table: TableInfo;
  /** Selectable columns in ordinal order. */
  columns: ColumnInfo[];
  filter: BoolExp;
  limit: number | null;
  allowAggregations: boolean;
  /** Relationships whose remote table this role may select, in metadata order. */
  relationships: Array<{ rel: RelationshipInfo; remote: TableInfo }>;
  /** Scalar computed fields allowed by the permission, and SETOF-table ones whose table is selectable. */
  computedFields: ComputedFieldInfo[];
}

const cache = new WeakMap<SchemaCache, Map<string, Map<string, SelectView | null>>>();

/** The role's select view of `table`, or null when the role has no select permission on it. */
export function selectView(sc: SchemaCache, role: string, table: TableInfo): SelectView | null {
  let byRole = cache.get(sc);
  if (!byRole) cache.set(sc, (byRole = new Map()));
  let byTable = byRole.get(role);
  if (!byTable) byRole.set(role, (byTable = new Map()));
  const key = qualifiedKey(table.name);
  if (byTable.has(key)) return byTable.get(key)!;
  const view = buildView(sc, role, table);
  byTable.set(key, view);
  return view;
}

/** Convenience: look the table up by `schema.name` key first. */
export function selectViewByKey(sc: SchemaCache, role: string, key: string): SelectView | null {
  const t = sc.tables.get(key);
  return t ? selectView(sc, role, t) : null;
}

export const canSelect = (sc: SchemaCache, role: string, table: TableInfo): boolean =>
  role === ADMIN_ROLE || table.permissions.get(role)?.select !== undefined;

function buildView(sc: SchemaCache, role: string, table: TableInfo): SelectView | null {
  const isAdmin = role === ADMIN_ROLE;
  const perm = isAdmin ? undefined : table.permissions.get(role)?.select;
  if (!isAdmin && !perm) return null;
  const columns = isAdmin ? table.columns : table.columns.filter((c) => perm!.columns.has(c.name));
  const relationships: SelectView['relationships'] = [];
  for (const rel of table.relationships.values()) {
    const remote = sc.tables.get(qualifiedKey(rel.join.remoteTable));
    if (remote && canSelect(sc, role, remote)) relationships.push({ rel, remote });
  }
  const computedFields: ComputedFieldInfo[] = [];
  for (const cf of table.computedFields.values()) {
    if (cf.returns.kind === 'scalar') {
      if (isAdmin || perm!.computedFields.has(cf.name)) computedFields.push(cf);
    } else {
      const remote = sc.tables.get(qualifiedKey(cf.returns.table));
      if (remote && canSelect(sc, role, remote)) computedFields.push(cf);
    }
  }
  return {
    table,
    columns,
    filter: perm?.filter ?? TRUE,
    limit: perm?.limit ?? null,
    allowAggregations: isAdmin || perm!.allowAggregations,
    relationships,
    computedFields,
  };
}
