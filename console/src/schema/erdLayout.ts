/**
 * The entity-relationship diagram's model and layout, pure: tracked tables (with their columns) in a
 * grid per schema, schemas one under another; one edge per pair of tables joined by relationships
 * (object, array, manual or by foreign key), labelled with the relationships' names. The page draws
 * only what intersects the viewport, so 500 tables cost what the visible few cost.
 */
import { refOf, tableKey, type ForeignKey, type TableRef } from './names.js';

export interface ErdTable {
  key: string;
  ref: TableRef;
  columns: Array<{ name: string; type: string }>;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface ErdEdge {
  from: string;
  to: string;
  label: string;
}

export interface ErdSchema {
  name: string;
  x: number;
  y: number;
}

export interface ErdModel {
  tables: ErdTable[];
  byKey: Map<string, ErdTable>;
  edges: ErdEdge[];
  schemas: ErdSchema[];
  width: number;
  height: number;
}

export const BOX_W = 210;
export const HEAD_H = 24;
export const ROW_H = 17;
export const MAX_ROWS = 12;
const GAP_X = 70;
const GAP_Y = 50;
const SCHEMA_HEAD = 36;

export const boxHeight = (n: number): number => HEAD_H + Math.min(n, MAX_ROWS + 1) * ROW_H + 8;

/** The table a relationship points at, or undefined (a remote relationship, an unknown key). */
function targetOf(table: TableRef, kind: 'object' | 'array', using: any, fks: ForeignKey[]): TableRef | undefined {
  if (using?.manual_configuration?.remote_table) return refOf(using.manual_configuration.remote_table);
  const f = using?.foreign_key_constraint_on;
  if (f === undefined) return undefined;
  if (kind === 'array') return f.table ? refOf(f.table) : undefined;
  const cols: string[] = typeof f === 'string' ? [f] : Array.isArray(f?.columns) ? f.columns : f?.column ? [f.column] : [];
  const fk = fks.find((k) => tableKey(k.from) === tableKey(table) && k.columns.length === cols.length && k.columns.every((c, i) => c === cols[i]));
  return fk?.to;
}

export function buildErd(metadataTables: any[], columns: Map<string, Array<{ name: string; type: string }>>, fks: ForeignKey[]): ErdModel {
  const refs: TableRef[] = metadataTables.map((t) => refOf(t.table));
  const bySchema = new Map<string, TableRef[]>();
  for (const r of refs) bySchema.set(r.schema, [...(bySchema.get(r.schema) ?? []), r]);
  const tables: ErdTable[] = [];
  const schemas: ErdSchema[] = [];
  let y = 0;
  let width = 0;
  for (const name of [...bySchema.keys()].sort()) {
    const list = bySchema.get(name)!.sort((a, b) => a.name.localeCompare(b.name));
    schemas.push({ name, x: 0, y });
    y += SCHEMA_HEAD;
    const perRow = Math.max(1, Math.min(list.length, Math.ceil(Math.sqrt(list.length * 1.5))));
    for (let i = 0; i < list.length; i += perRow) {
      let rowH = 0;
      list.slice(i, i + perRow).forEach((ref, j) => {
        const cols = columns.get(tableKey(ref)) ?? [];
        const h = boxHeight(cols.length);
        const x = j * (BOX_W + GAP_X);
        tables.push({ key: tableKey(ref), ref, columns: cols, x, y, w: BOX_W, h });
        rowH = Math.max(rowH, h);
        width = Math.max(width, x + BOX_W);
      });
      y += rowH + GAP_Y;
    }
  }
  const byKey = new Map(tables.map((t) => [t.key, t]));
  const pairs = new Map<string, ErdEdge>();
  for (const t of metadataTables) {
    const from = refOf(t.table);
    for (const [kind, list] of [['object', t.object_relationships], ['array', t.array_relationships]] as const) {
      for (const rel of list ?? []) {
        const to = targetOf(from, kind, rel.using, fks);
        if (!to || !byKey.has(tableKey(to))) continue;
        const [a, b] = [tableKey(from), tableKey(to)].sort();
        const key = `${a}\u0000${b}`;
        const e = pairs.get(key);
        if (e) e.label = `${e.label}, ${rel.name}`;
        else pairs.set(key, { from: a, to: b, label: rel.name });
      }
    }
  }
  return { tables, byKey, edges: [...pairs.values()], schemas, width, height: y };
}

/** The point where the segment from the centre of `a` towards `p` leaves `a`'s box. */
export function exitPoint(a: ErdTable, p: { x: number; y: number }): { x: number; y: number } {
  const cx = a.x + a.w / 2;
  const cy = a.y + a.h / 2;
  const dx = p.x - cx;
  const dy = p.y - cy;
  if (dx === 0 && dy === 0) return { x: cx, y: cy };
  const s = Math.min(dx === 0 ? Infinity : a.w / 2 / Math.abs(dx), dy === 0 ? Infinity : a.h / 2 / Math.abs(dy));
  return { x: cx + dx * s, y: cy + dy * s };
}

export interface Viewport {
  x: number;
  y: number;
  w: number;
  h: number;
}

export const intersects = (v: Viewport, x: number, y: number, w: number, h: number): boolean => x < v.x + v.w && x + w > v.x && y < v.y + v.h && y + h > v.y;
