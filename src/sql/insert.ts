/**
 * Insert IR → SQL. A plain insert (no nested relationship data) is ONE statement:
 *
 *   WITH "_svc_m" AS (
 *     INSERT INTO "public"."author" AS "_svc_t" ("id", "name") VALUES ($1::"int4", $2::"text"), (DEFAULT, $3::"text")
 *       (rows that all give the same columns: SELECT unnest($1::"int4"[]), unnest($2::"text"[]), unnestRows.ts)
 *     ON CONFLICT ON CONSTRAINT "author_pkey" DO UPDATE SET "name" = EXCLUDED."name" WHERE <update filter>
 *     RETURNING *, CASE WHEN "_svc_t"."xmax" = 0 THEN <insert check> ELSE <update check> END AS "svc_check")
 *   SELECT coalesce(<check failure>, <response JSON>)
 *
 * Inserts with nested relationship data run as several statements in the same transaction
 * (parents, then the row, then its children; see mutationRun.ts), because rows written by one
 * statement are invisible to the checks and relationship selects of that same statement.
 * `insertRowsStatement` is the per-step statement; `rowsOutputStatement` builds the final
 * response from the rows the steps returned.
 */
import type { ColumnValue, InsertIR, MutationOutputIR, OnConflictIR } from '../ir/index.js';
import { sql, type SqlFragment } from './fragment.js';
import { CHECK_COLUMN, MUTATED, checkCase, mutationStatement } from './mutationOutput.js';
import { boolExpSql } from './mutationDeps.js';
import { unnestRowsSql } from './unnestRows.js';

/** Alias of the target table inside the INSERT (RETURNING and ON CONFLICT refer to it). */
const TARGET = sql.ident('_svc_t');

/**
 * The column list and the rows: columns in order of first appearance; several rows that all give
 * the same columns as one array parameter per column (unnestRows.ts), else VALUES with DEFAULT where
 * a row lacks a column.
 */
function valuesSql(rows: ColumnValue[][]): { columns: SqlFragment; values: SqlFragment } | null {
  const names: string[] = [];
  for (const row of rows) for (const c of row) if (!names.includes(c.column)) names.push(c.column);
  if (names.length === 0) return null;
  const columns = sql`(${sql.join(names.map((n) => sql.ident(n)))})`;
  const unnest = unnestRowsSql(names, rows);
  if (unnest) return { columns, values: unnest };
  const tuples = rows.map((row) => {
    const byName = new Map(row.map((c) => [c.column, c]));
    return sql`(${sql.join(names.map((n) => {
      const c = byName.get(n);
      return c ? sql.param(c.value.source, c.value.pgType) : sql`DEFAULT`;
    }))})`;
  });
  return { columns, values: sql`VALUES ${sql.join(tuples)}` };
}

function conflictSql(oc: OnConflictIR): SqlFragment {
  const target = !oc.target
    ? sql.empty
    : oc.target.kind === 'constraint'
      ? sql` ON CONSTRAINT ${sql.ident(oc.target.name)}`
      : sql` (${sql.join(oc.target.columns.map((c) => sql.ident(c)))})`;
  if (oc.action === 'nothing') return sql` ON CONFLICT${target} DO NOTHING`;
  const sets = [
    ...oc.columns.filter((c) => !oc.presets.some((p) => p.column === c)).map((c) => sql`${sql.ident(c)} = EXCLUDED.${sql.ident(c)}`),
    ...oc.presets.map((p) => sql`${sql.ident(p.column)} = ${sql.param(p.value.source, p.value.pgType)}`),
  ];
  const where = oc.where.kind === 'true' ? sql.empty : sql` WHERE ${boolExpSql(oc.where, TARGET)}`;
  return sql` ON CONFLICT${target} DO UPDATE SET ${sql.join(sets)}${where}`;
}

/** The check column: the insert check, or for an upsert that may update, the check of whichever happened. */
function checkColumnSql(ir: InsertIR): SqlFragment {
  const ins = checkCase(ir.check, TARGET, 'insert');
  if (ir.onConflict?.action !== 'update' || !ir.updateCheck) return ins;
  const upd = checkCase(ir.updateCheck, TARGET, 'update');
  return sql`CASE WHEN ${TARGET}.${sql.ident('xmax')} = 0 THEN ${ins} ELSE ${upd} END`;
}

/**
 * `INSERT … RETURNING *, <check> AS "svc_check"` for `rows` (each row's columns, nested data
 * already resolved to columns), plus `extra` RETURNING items.
 */
export function insertSql(ir: InsertIR, rows: ColumnValue[][], extra: SqlFragment[] = []): SqlFragment {
  const table = sql.table(ir.table);
  const returning = sql`RETURNING *, ${checkColumnSql(ir)} AS ${sql.ident(CHECK_COLUMN)}${sql.join(extra.map((e) => sql`, ${e}`), '')}`;
  if (rows.length === 0) {
    return sql`SELECT *, NULL::text AS ${sql.ident(CHECK_COLUMN)}${sql.join(extra.map((e) => sql`, ${e}`), '')} FROM ${table} AS ${TARGET} WHERE false`;
  }
  const conflict = ir.onConflict ? conflictSql(ir.onConflict) : sql.empty;
  const vals = valuesSql(rows);
  if (!vals) {
    // No column given anywhere: every column takes its default.
    const source = rows.length === 1 ? sql`DEFAULT VALUES` : sql`SELECT FROM generate_series(1, ${sql.int(rows.length)})`;
    return sql`INSERT INTO ${table} AS ${TARGET} ${source}${conflict} ${returning}`;
  }
  return sql`INSERT INTO ${table} AS ${TARGET} ${vals.columns} ${vals.values}${conflict} ${returning}`;
}

/** True when some row carries nested relationship data (then mutationRun inserts step by step). */
export function hasNestedInserts(ir: InsertIR): boolean {
  return ir.rows.some((r) => r.objectRelationships.length > 0 || r.arrayRelationships.length > 0);
}

/** The one statement of an insert without nested data: rows inserted, checked, response built. */
export function compileInsert(ir: InsertIR): SqlFragment {
  return mutationStatement(insertSql(ir, ir.rows.map((r) => r.columns)), ir.output);
}

/**
 * One step of a nested insert: inserts `rows` and returns
 * `{"rows": [{"text": <row as text>, "keys": [<keyColumns as text>…]}…]}` (a failed check raises).
 */
export function insertRowsStatement(ir: InsertIR, rows: ColumnValue[][], keyColumns: string[]): SqlFragment {
  const rowText = sql`${TARGET}::text AS ${sql.ident('svc_row')}`;
  const row = sql.ident('_svc_r');
  const keys = sql`json_build_array(${sql.join(keyColumns.map((k) => sql`${row}.${sql.ident(k)}::text`))})`;
  const out = sql`json_build_object('rows', (SELECT coalesce(json_agg(json_build_object('text', ${row}.${sql.ident('svc_row')}, 'keys', ${keys})), '[]') FROM ${MUTATED} AS ${row}))`;
  return sql`WITH ${MUTATED} AS (${insertSql(ir, rows, [rowText])}) SELECT ${out}`;
}

/**
 * The response of a nested insert: the rows the steps inserted (as row texts, in `$rows`) are
 * read back as rows of the table, so relationships in `returning` see everything inserted.
 */
export function rowsOutputStatement(ir: InsertIR, rowTexts: string[], affectedRows: number, output: MutationOutputIR): SqlFragment {
  const rows = sql`SELECT (${sql.ident('r')}::${sql.table(ir.table)}).* FROM unnest(${sql.value(rowTexts, '_text')}) AS ${sql.ident('r')}`;
  return mutationStatement(rows, output, sql.int(affectedRows));
}
