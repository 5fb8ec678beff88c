/**
 * The recursive core: a selection of fields over some rows → the row object plus the lateral
 * joins its relationships need. Each relationship is one LEFT JOIN LATERAL whose single column
 * "v" holds that field's JSON, so any depth nests the same way (bench/sql/c_nested_3.sql):
 *
 *   SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t0."id" AS "id", _j1."v" AS "albums") AS _r) ORDER BY _t0."id" ASC), '[]')
 *   FROM (SELECT * FROM "public"."artist" AS _t0 ORDER BY _t0."id" ASC LIMIT 10) AS _t0
 *   LEFT JOIN LATERAL (
 *     SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t2."title" AS "title") AS _r)), '[]') AS "v"
 *     FROM (SELECT * FROM "public"."album" AS _t2 WHERE (_t2."artist_id" = _t0."id")) AS _t2
 *   ) AS _j1 ON true
 *
 * Object relationships select the row object (or nothing → null), array relationships
 * `coalesce(json_agg(row ORDER BY keys), '[]')`, `<rel>_aggregate` a `json_build_object` of
 * aggregates. In `scalar` mode (mutation output, where the FROM belongs to someone else) the same
 * nodes are written as correlated scalar subqueries instead of joins.
 */
import type { AggregateIR, AggregateOp, ConnectionIR, RelationshipJoin, SelectField, SelectIR } from '../ir/index.js';
import { Aliases } from './aliases.js';
import { connectionNode, relayIdSql, type NodeSelection } from './connection.js';
import { aggregateCall } from './aggregateOps.js';
import { columnSql, compileBoolExp, joinCondition, maskedRowSql, valueSql, visibleColumnSql } from './boolExp.js';
import { columnValue, functionCallSql, toJsonable } from './columns.js';
import { nativeQuerySql } from './nativeQuery.js';
import { sql, type SqlFragment } from './fragment.js';
import { jsonBuildObject, rowObject, type JsonEntry, type RowExpr } from './jsonObject.js';
import { limitSql, rowsSql, type Rows, type RowsSpec } from './rows.js';

export type NodeMode = 'lateral' | 'scalar';

/** Where a nested node's rows come from and how they correlate with the parent row. */
interface NodeSource {
  from: SqlFragment;
  join?: (alias: SqlFragment) => SqlFragment;
}

export interface Selection {
  row: RowExpr;
  /** LEFT JOIN LATERAL items to put after the rows in FROM (lateral mode only). */
  joins: SqlFragment[];
}

/** The row object for `fields` over the rows of `alias`. */
export function selection(fields: readonly SelectField[], alias: SqlFragment, aliases: Aliases, mode: NodeMode = 'lateral'): Selection {
  const joins: SqlFragment[] = [];
  // The join alias is taken before the node is built so aliases read in order.
  const nested = (build: () => SqlFragment): SqlFragment => {
    if (mode === 'scalar') return sql`(${build()})`;
    const j = aliases.next('j');
    joins.push(sql`LEFT JOIN LATERAL (${build()}) AS ${j} ON true`);
    return sql`${j}."v"`;
  };
  const entries: JsonEntry[] = fields.map((f): JsonEntry => {
    switch (f.kind) {
      case 'column':
        return { key: f.alias, value: columnValue(f, alias, aliases) };
      case 'typename':
        return { key: f.alias, value: sql`${sql.literal(f.name)}::text` };
      case 'object_rel':
        return { key: f.alias, value: nested(() => objectNode(f.select, relSource(f.select, f.join, alias, aliases), aliases)) };
      case 'array_rel':
        return { key: f.alias, value: nested(() => arrayNode(f.select, relSource(f.select, f.join, alias, aliases), aliases)) };
      case 'array_agg_rel':
        return { key: f.alias, value: nested(() => aggregateNode(f.aggregate, relSource(f.aggregate, f.join, alias, aliases), aliases)) };
      case 'computed_scalar': {
        const call = functionCallSql(f, f.maskedRow ? maskedRowSql(f.maskedRow, alias, aliases) : alias);
        const value = f.visibleIf ? sql`(CASE WHEN ${compileBoolExp(f.visibleIf, alias, { aliases })} THEN ${call} END)` : call;
        return { key: f.alias, value: toJsonable(value, f.pgType, f.stringify) };
      }
      case 'computed_table':
        return { key: f.alias, value: nested(() => arrayNode(f.select, { from: functionCallSql(f, f.maskedRow ? maskedRowSql(f.maskedRow, alias, aliases) : alias) }, aliases)) };
      case 'relay_id':
        return { key: f.alias, value: relayIdSql(f, alias) };
      case 'connection':
        return { key: f.alias, value: nested(() => connectionNode(f.connection, relSource(f.connection.select, f.join, alias, aliases), aliases, nodeRow(f.connection, aliases))) };
      case 'remote_rel_keys':
        return {
          key: f.alias,
          value: jsonBuildObject(f.columns.map((c) => ({ key: c.key, value: columnValue(c.visibleIf ? { column: c.column, pgType: c.pgType, visibleIf: c.visibleIf } : { column: c.column, pgType: c.pgType }, alias, aliases) }))),
        };
    }
  });
  return { row: rowObject(entries), joins };
}

/** The JSON of a connection's nodes over the page's rows (edges.node). */
function nodeRow(ir: ConnectionIR, aliases: Aliases): NodeSelection {
  const fields = ir.fields.flatMap((f) => (f.kind === 'edges' ? f.fields.flatMap((e) => (e.kind === 'node' ? e.fields : [])) : []));
  return (alias) => {
    const sel = selection(fields, alias, aliases);
    return { row: sel.row.json ? sel.row.expr : sql`row_to_json(${sel.row.expr})`, joins: sel.joins };
  };
}

/** A root `<t>_connection`: one statement, one row, one json column. */
export function compileConnection(ir: ConnectionIR, column: string): SqlFragment {
  const aliases = new Aliases();
  return connectionNode(ir, { from: sourceSql(ir.select) }, aliases, nodeRow(ir, aliases), column);
}

function relSource(ir: SelectIR | AggregateIR, join: RelationshipJoin, parent: SqlFragment, aliases: Aliases): NodeSource {
  return { from: sourceSql(ir), join: (a) => joinCondition(join, a, parent, aliases) };
}

/** The FROM item of a select: its table, the function call it reads, or a native query's SQL as a subquery. */
export function sourceSql(ir: SelectIR | AggregateIR): SqlFragment {
  if (!ir.source) return sql.table(ir.table);
  return 'code' in ir.source ? nativeQuerySql(ir.source) : functionCallSql(ir.source);
}

/** Computed fields pass the row to a function, so the derived row must keep the table's row type. */
const needsWholeRow = (fields: readonly SelectField[]): boolean =>
  fields.some((f) => f.kind === 'computed_scalar' || f.kind === 'computed_table');

function selectRows(ir: SelectIR, src: NodeSource, aliases: Aliases, single: boolean, limit?: SqlFragment): Rows {
  const spec: RowsSpec = {
    from: src.from,
    join: src.join,
    where: ir.where,
    wholeRow: needsWholeRow(ir.fields),
  };
  // An object relationship reads one row: `limit` (1) is set when nothing guarantees it (native queries).
  if (single && ir.limit !== undefined) spec.limit = limitSql(ir.limit);
  if (!single) {
    spec.orderBy = ir.orderBy;
    spec.limit = limit ?? limitSql(ir.limit);
    spec.offset = limitSql(ir.offset);
    spec.distinctOn = ir.distinctOn;
    spec.distinctOnVisibleIf = ir.distinctOnVisibleIf;
  }
  return rowsSql(spec, aliases);
}

const fromWithJoins = (rows: Rows, joins: readonly SqlFragment[]): SqlFragment => sql.join([rows.from, ...joins], ' ');

const orderBySuffix = (order: SqlFragment | undefined): SqlFragment => (order ? sql` ORDER BY ${order}` : sql.empty);

/** `SELECT <row> AS "v" FROM rows ...`: the related object, or no row at all (→ null). */
export function objectNode(ir: SelectIR, src: NodeSource, aliases: Aliases): SqlFragment {
  const rows = selectRows(ir, src, aliases, true);
  const sel = selection(ir.fields, rows.alias, aliases);
  return sql`SELECT ${sel.row.expr} AS "v" FROM ${fromWithJoins(rows, sel.joins)}`;
}

/** `SELECT coalesce(json_agg(<row> ORDER BY ...), '[]') AS "v" FROM rows ...`. */
export function arrayNode(ir: SelectIR, src: NodeSource, aliases: Aliases, column = 'v', limit?: SqlFragment): SqlFragment {
  const rows = selectRows(ir, src, aliases, false, limit);
  const sel = selection(ir.fields, rows.alias, aliases);
  return sql`SELECT coalesce(json_agg(${sel.row.expr}${orderBySuffix(rows.order)}), '[]') AS ${sql.ident(column)} FROM ${fromWithJoins(rows, sel.joins)}`;
}

/** `SELECT row_to_json(<row>) ... LIMIT 1` as a scalar subquery: the object, or SQL NULL. */
export function singleRowJson(ir: SelectIR, src: NodeSource, aliases: Aliases): SqlFragment {
  const rows = selectRows(ir, src, aliases, true);
  const sel = selection(ir.fields, rows.alias, aliases);
  const json = sel.row.json ? sel.row.expr : sql`row_to_json(${sel.row.expr})`;
  return sql`(SELECT ${json} FROM ${fromWithJoins(rows, sel.joins)} LIMIT 1)`;
}

/**
 * `SELECT json_build_object('aggregate', json_build_object('count', count(*), ...), 'nodes', ...) AS "v"
 * FROM rows`: the aggregates are over the rows after where/order/limit/offset, as in Hasura.
 */
export function aggregateNode(ir: AggregateIR, src: NodeSource, aliases: Aliases, column = 'v'): SqlFragment {
  const nodeFields = ir.fields.flatMap((f) => (f.kind === 'nodes' ? f.fields : []));
  const hasAggregates = ir.fields.some((f) => f.kind === 'aggregate');
  const splitNodes = ir.nodesLimit !== undefined && hasAggregates && nodeFields.length > 0;
  const rows = rowsSql(
    {
      from: src.from,
      join: src.join,
      where: ir.where,
      orderBy: ir.orderBy,
      limit: limitSql(ir.limit),
      offset: limitSql(ir.offset),
      distinctOn: ir.distinctOn,
      distinctOnVisibleIf: ir.distinctOnVisibleIf,
      wholeRow: needsWholeRow(nodeFields),
    },
    aliases,
  );
  const joins: SqlFragment[] = [];
  let aggregating = false;
  const entries = ir.fields.map((f): JsonEntry => {
    switch (f.kind) {
      case 'typename':
        return { key: f.alias, value: sql`${sql.literal(f.name)}::text` };
      case 'aggregate': {
        const ops = f.ops.map((op) => aggregateOpEntry(op, rows.alias, aliases));
        if (ops.some((o) => o.aggregating)) aggregating = true;
        return { key: f.alias, value: jsonBuildObject(ops) };
      }
      case 'nodes': {
        if (splitNodes) return { key: f.alias, value: sql`(${limitedNodes(ir, f.fields, src, aliases)})` };
        aggregating = true;
        const sel = selection(f.fields, rows.alias, aliases);
        joins.push(...sel.joins);
        return { key: f.alias, value: sql`coalesce(json_agg(${sel.row.expr}${orderBySuffix(rows.order)}), '[]')` };
      }
    }
  });
  const obj = jsonBuildObject(entries);
  // Without any aggregate function the statement must still return exactly one row.
  if (!aggregating) return sql`SELECT ${obj} AS ${sql.ident(column)}`;
  return sql`SELECT ${obj} AS ${sql.ident(column)} FROM ${fromWithJoins(rows, joins)}`;
}

/** `nodes` capped by the permission limit, read separately from the aggregates' rows. */
function limitedNodes(ir: AggregateIR, fields: SelectField[], src: NodeSource, aliases: Aliases): SqlFragment {
  const cap = ir.nodesLimit!;
  const select: SelectIR = { table: ir.table, source: ir.source, fields, where: ir.where, orderBy: ir.orderBy, offset: ir.offset, distinctOn: ir.distinctOn, distinctOnVisibleIf: ir.distinctOnVisibleIf };
  // The smaller of the client's limit and the cap (a parameter limit is compared in SQL).
  const limit =
    ir.limit === undefined ? sql.int(cap) : typeof ir.limit === 'number' ? sql.int(Math.min(ir.limit, cap)) : sql`least(${valueSql(ir.limit)}, ${sql.int(cap)})`;
  return arrayNode(select, src, aliases, 'v', limit);
}

function aggregateOpEntry(op: AggregateOp, alias: SqlFragment, aliases: Aliases): JsonEntry & { aggregating: boolean } {
  switch (op.kind) {
    case 'typename':
      return { key: op.alias, value: sql`${sql.literal(op.name)}::text`, aggregating: false };
    case 'count': {
      const cols = op.columns ?? [];
      if (cols.length === 0) return { key: op.alias, value: sql`count(*)`, aggregating: true };
      // Hasura: count((a, b)) / count(DISTINCT (a, b)); for one column that is count(a) / count(DISTINCT a).
      const list = sql`(${sql.join(cols.map((c) => visibleColumnSql(alias, c, op.visibleIf?.[c], aliases)))})`;
      return { key: op.alias, value: op.distinct ? sql`count(DISTINCT ${list})` : sql`count(${list})`, aggregating: true };
    }
    case 'op': {
      let aggregating = false;
      const cols = op.columns.map((c): JsonEntry => {
        if ('kind' in c) return { key: c.alias, value: sql`${sql.literal(c.name)}::text` };
        aggregating = true;
        return { key: c.alias, value: toJsonable(aggregateCall(op.op, visibleColumnSql(alias, c.column, c.visibleIf, aliases)), c.pgType, c.stringify) };
      });
      return { key: op.alias, value: jsonBuildObject(cols), aggregating };
    }
  }
}
