/**
 * Relay connections in one statement, the JSON (edges, cursors, pageInfo) built in Postgres:
 *
 *   SELECT json_build_object('edges', coalesce(json_agg(json_build_object('cursor', _p."__svc_cursor",
 *            'node', <row of _p>) ORDER BY _p."__svc_rn"), '[]'),
 *          'pageInfo', json_build_object('hasNextPage', coalesce(max(_p."__svc_rn") < max(_p."__svc_total"), false), ...)) AS "v"
 *   FROM (SELECT * FROM (
 *           SELECT _n.*, max(CASE WHEN <pk = after> THEN _n."__svc_rn" END) OVER () AS "__svc_after"
 *           FROM (SELECT _t0.*, row_number() OVER (ORDER BY <order, pk>) AS "__svc_rn", count(*) OVER () AS "__svc_total",
 *                        <base64 of json_build_object(<order columns>, <pk>)> AS "__svc_cursor"
 *                 FROM (SELECT * FROM "public"."article" AS _t0 WHERE <where AND permission>) AS _t0) AS _n) AS _n
 *         WHERE _n."__svc_rn" > coalesce(_n."__svc_after", _n."__svc_total")
 *         ORDER BY _n."__svc_rn" LIMIT <first>) AS _p
 *   LEFT JOIN LATERAL (...relationships of the nodes...) ...
 *
 * Every row of the filtered set is numbered in the requested order (the primary key breaks ties);
 * a cursor is located by its primary-key values, so `hasPreviousPage` / `hasNextPage` say whether
 * rows of that set lie before / after the page. A cursor whose row has left the set (deleted, or
 * filtered out now) leaves nothing after (`after`) or before (`before`) it.
 */
import type { ConnectionIR, EdgeField, IrValue, PageInfoField, RelayIdField } from '../ir/index.js';
import type { Aliases } from './aliases.js';
import { andSql, columnSql, valueSql, visibleColumnSql } from './boolExp.js';
import { sql, type SqlFragment } from './fragment.js';
import { jsonBuildObject, type JsonEntry } from './jsonObject.js';
import { limitSql, rowsSql } from './rows.js';

const RN = sql.ident('__svc_rn');
const TOTAL = sql.ident('__svc_total');
const CURSOR = sql.ident('__svc_cursor');
const AFTER = sql.ident('__svc_after');
const BEFORE = sql.ident('__svc_before');

/** base64 of a json value's text, on one line (Postgres breaks base64 every 76 characters). */
const base64 = (json: SqlFragment): SqlFragment => sql`translate(encode(convert_to((${json})::text, 'UTF8'), 'base64'), E'\\n', '')`;

/** `base64([1, "schema", "table", pk...])`: Hasura v1.3's global id (version 1). */
export function relayIdSql(f: RelayIdField, alias: SqlFragment): SqlFragment {
  const cols = f.columns.map((c) => columnSql(alias, c));
  return base64(sql`json_build_array(1, ${sql.literal(f.table.schema)}::text, ${sql.literal(f.table.name)}::text, ${sql.join(cols)})`);
}

interface Source {
  from: SqlFragment;
  join?: (alias: SqlFragment) => SqlFragment;
}

/** The node selection is compiled by the caller (nodes.ts) over the page's alias: rows, then their JSON. */
export type NodeSelection = (alias: SqlFragment) => { row: SqlFragment; joins: SqlFragment[] };

/** `SELECT <connection json> AS "<column>" FROM <page> ...`: one row, one json column. */
export function connectionNode(ir: ConnectionIR, src: Source, aliases: Aliases, node: NodeSelection, column = 'v'): SqlFragment {
  const rows = rowsSql({ from: src.from, join: src.join, where: ir.select.where, orderBy: ir.select.orderBy, wholeRow: true }, aliases);
  const t = rows.alias;
  const cursor = base64(jsonBuildObject(ir.cursorColumns.map((c) => ({ key: c, value: visibleColumnSql(t, c, ir.cursorVisibleIf?.[c], aliases) }))));
  const order = rows.order ?? sql.join(ir.pk.map((k) => columnSql(t, k.column)));
  const numbered = sql`SELECT ${t}.*, row_number() OVER (ORDER BY ${order}) AS ${RN}, count(*) OVER () AS ${TOTAL}, ${cursor} AS ${CURSOR} FROM ${rows.from}`;
  const n = aliases.next('t');
  const at = (values: IrValue[] | undefined, name: SqlFragment): SqlFragment | undefined => {
    if (!values) return undefined;
    const eq = andSql(ir.pk.map((k, i) => sql`${columnSql(n, k.column)} = ${valueSql(values[i])}`));
    return sql`max(CASE WHEN ${eq} THEN ${n}.${RN} END) OVER () AS ${name}`;
  };
  const marks = [at(ir.after, AFTER), at(ir.before, BEFORE)].filter((x): x is SqlFragment => x !== undefined);
  const located = marks.length === 0 ? sql`(${numbered}) AS ${n}` : sql`(SELECT ${n}.*, ${sql.join(marks)} FROM (${numbered}) AS ${n}) AS ${n}`;
  const cut = andSql([
    ir.after ? sql`${n}.${RN} > coalesce(${n}.${AFTER}, ${n}.${TOTAL})` : undefined,
    ir.before ? sql`${n}.${RN} < coalesce(${n}.${BEFORE}, 1)` : undefined,
  ]);
  const backward = ir.last !== undefined;
  const limit = limitSql(backward ? ir.last : ir.first);
  const page = sql`SELECT * FROM ${located}${ir.after || ir.before ? sql` WHERE ${cut}` : sql.empty} ORDER BY ${n}.${RN}${backward ? sql` DESC` : sql.empty}${limit ? sql` LIMIT ${limit}` : sql.empty}`;
  const p = aliases.next('t');
  const joins: SqlFragment[] = [];
  const entries = ir.fields.map((f): JsonEntry => {
    switch (f.kind) {
      case 'typename':
        return { key: f.alias, value: sql`${sql.literal(f.name)}::text` };
      case 'edges': {
        const edge = jsonBuildObject(f.fields.map((e) => edgeEntry(e, p, node, joins)));
        return { key: f.alias, value: sql`coalesce(json_agg(${edge} ORDER BY ${p}.${RN}), '[]')` };
      }
      case 'page_info':
        return { key: f.alias, value: jsonBuildObject(f.fields.map((i) => pageInfoEntry(i, p))) };
    }
  });
  // Only `__typename` asked for: no rows to read (and one row to return).
  if (ir.fields.every((f) => f.kind === 'typename')) return sql`SELECT ${jsonBuildObject(entries)} AS ${sql.ident(column)}`;
  return sql`SELECT ${jsonBuildObject(entries)} AS ${sql.ident(column)} FROM (${page}) AS ${p}${joins.length ? sql` ${sql.join(joins, ' ')}` : sql.empty}`;
}

function edgeEntry(e: EdgeField, p: SqlFragment, node: NodeSelection, joins: SqlFragment[]): JsonEntry {
  switch (e.kind) {
    case 'typename':
      return { key: e.alias, value: sql`${sql.literal(e.name)}::text` };
    case 'cursor':
      return { key: e.alias, value: sql`${p}.${CURSOR}` };
    case 'node': {
      const sel = node(p);
      joins.push(...sel.joins);
      return { key: e.alias, value: sel.row };
    }
  }
}

function pageInfoEntry(i: PageInfoField, p: SqlFragment): JsonEntry {
  switch (i.kind) {
    case 'typename':
      return { key: i.alias, value: sql`${sql.literal(i.name)}::text` };
    case 'hasNextPage':
      return { key: i.alias, value: sql`coalesce(max(${p}.${RN}) < max(${p}.${TOTAL}), false)` };
    case 'hasPreviousPage':
      return { key: i.alias, value: sql`coalesce(min(${p}.${RN}) > 1, false)` };
    case 'startCursor':
      return { key: i.alias, value: sql`(array_agg(${p}.${CURSOR} ORDER BY ${p}.${RN}))[1]` };
    case 'endCursor':
      return { key: i.alias, value: sql`(array_agg(${p}.${CURSOR} ORDER BY ${p}.${RN} DESC))[1]` };
  }
}
