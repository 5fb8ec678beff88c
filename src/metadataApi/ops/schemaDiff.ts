/**
 * What SQL did to the objects the metadata uses, comparing the snapshots taken before and after
 * (Hasura's `getSchemaDiff` / `getFuncDiff`): tracked tables matched by oid (dropped, renamed),
 * their columns by attnum (dropped, renamed, type changed), foreign keys (dropped), and tracked or
 * computed-field functions (dropped or renamed, volatility changed, overloaded).
 */
import { qualifiedKey, sameName } from '../../core/index.js';
import type { QualifiedFunction, QualifiedTable } from '../../core/index.js';
import type { DbFunction, DbSnapshot, DbTable, Metadata } from '../../metadata/index.js';

export interface TableDiff {
  table: QualifiedTable;
  newName?: QualifiedTable;
  droppedColumns: string[];
  addedColumns: string[];
  renamedColumns: Array<{ from: string; to: string }>;
  alteredColumns: string[];
  droppedForeignKeys: string[];
}

export interface SchemaDiff {
  droppedTables: QualifiedTable[];
  alteredTables: TableDiff[];
  droppedFunctions: QualifiedFunction[];
  /** Functions whose volatility became VOLATILE. */
  volatileFunctions: QualifiedFunction[];
  overloadedFunctions: QualifiedFunction[];
}

function tableByOid(snap: DbSnapshot): Map<number, DbTable> {
  return new Map([...snap.tables.values()].map((t) => [t.oid, t]));
}

function diffTable(oldT: DbTable, newT: DbTable): TableDiff {
  const table = { schema: oldT.schema, name: oldT.name };
  const d: TableDiff = { table, droppedColumns: [], addedColumns: [], renamedColumns: [], alteredColumns: [], droppedForeignKeys: [] };
  if (oldT.schema !== newT.schema || oldT.name !== newT.name) d.newName = { schema: newT.schema, name: newT.name };
  const newCols = new Map(newT.columns.map((c) => [c.position, c]));
  for (const c of oldT.columns) {
    const n = newCols.get(c.position);
    if (!n) d.droppedColumns.push(c.name);
    else if (n.name !== c.name) d.renamedColumns.push({ from: c.name, to: n.name });
    else if (n.type !== c.type || n.typeSchema !== c.typeSchema) d.alteredColumns.push(c.name);
  }
  const oldPositions = new Set(oldT.columns.map((c) => c.position));
  for (const c of newT.columns) if (!oldPositions.has(c.position)) d.addedColumns.push(c.name);
  const mapping = (fk: DbTable['foreignKeys'][number]) => `${qualifiedKey(fk.refTable)}|${fk.columns.join(',')}|${fk.refColumns.join(',')}`;
  const newOids = new Set(newT.foreignKeys.map((f) => f.oid));
  const newMappings = new Set(newT.foreignKeys.map(mapping));
  for (const fk of oldT.foreignKeys) {
    if (!newOids.has(fk.oid) && !newMappings.has(mapping(fk))) d.droppedForeignKeys.push(fk.name);
  }
  return d;
}

/** Functions the metadata relies on: tracked ones and those of computed fields. */
export function metadataFunctions(md: Metadata): QualifiedFunction[] {
  const out: QualifiedFunction[] = (md.functions ?? []).map((f) => f.function);
  for (const t of md.tables) {
    for (const cf of t.computed_fields ?? []) {
      const f = cf.definition.function;
      out.push(typeof f === 'string' ? { schema: 'public', name: f } : f);
    }
  }
  return out.filter((f, i) => out.findIndex((g) => sameName(f, g)) === i);
}

export function schemaDiff(md: Metadata, before: DbSnapshot, after: DbSnapshot): SchemaDiff {
  const afterByOid = tableByOid(after);
  const diff: SchemaDiff = { droppedTables: [], alteredTables: [], droppedFunctions: [], volatileFunctions: [], overloadedFunctions: [] };
  for (const t of md.tables) {
    const oldT = before.tables.get(qualifiedKey(t.table));
    if (!oldT) continue; // already inconsistent before the SQL ran
    const newT = afterByOid.get(oldT.oid);
    if (!newT) diff.droppedTables.push({ ...t.table });
    else diff.alteredTables.push(diffTable(oldT, newT));
  }
  const afterFns = new Map<number, DbFunction>();
  for (const list of after.functions.values()) for (const f of list) afterFns.set(f.oid, f);
  for (const fn of metadataFunctions(md)) {
    const old = before.functions.get(qualifiedKey(fn));
    if (!old || old.length !== 1) continue;
    const now = afterFns.get(old[0].oid);
    if (!now || now.schema !== fn.schema || now.name !== fn.name) diff.droppedFunctions.push(fn);
    else if (now.volatility !== old[0].volatility && now.volatility === 'VOLATILE') diff.volatileFunctions.push(fn);
    if ((after.functions.get(qualifiedKey(fn)) ?? []).length > 1) diff.overloadedFunctions.push(fn);
  }
  return diff;
}
