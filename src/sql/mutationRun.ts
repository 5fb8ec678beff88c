/**
 * Runs one mutation IR through a caller-supplied query function (the caller owns the connection
 * and the transaction; this module does no I/O of its own). Most mutations are one statement.
 * Inserts with nested relationship data are several, in Hasura's order: for each row, its object
 * relationships' parents first (their key values fill the row's columns), then the row, then its
 * array relationships' children (the row's key values fill theirs); finally one statement builds
 * the response from everything inserted.
 *
 * A statement whose permission check fails raises check_violation in Postgres (mutationOutput.ts),
 * which the caller's query function reports as a `permission-error`; its transaction rolls back.
 *
 * `singleStatement` gives the one compiled statement of a mutation that is one statement,
 * compiled once per IR (the IR lives in the plan cache): the engine sends those as one pipeline.
 */
import { ApiError, displayName } from '../core/index.js';
import type { Session } from '../core/index.js';
import type { ColumnValue, InsertIR, InsertRowIR, MutationIR } from '../ir/index.js';
import { compile, type Param, type SqlFragment } from './fragment.js';
import { resolveParams } from './params.js';
import { compileInsert, hasNestedInserts, insertRowsStatement, rowsOutputStatement } from './insert.js';
import { compileUpdate } from './update.js';
import { compileDelete } from './delete.js';

/** Runs a statement that returns one json column; resolves to its text (or null). */
export type JsonQuery = (text: string, values: unknown[]) => Promise<string | null>;

export interface MutationRunContext {
  query: JsonQuery;
  session: Session;
  variables?: Record<string, unknown>;
}

/** A compiled statement: its text and the parameters to resolve per request. */
export interface CompiledStatement {
  text: string;
  params: Param[];
}

const compiledOnce = new WeakMap<MutationIR, CompiledStatement | null>();

/** The one statement of `ir`, compiled once per IR; `undefined` for a nested insert (several statements). */
export function singleStatement(ir: MutationIR): CompiledStatement | undefined {
  let c = compiledOnce.get(ir);
  if (c === undefined) {
    c = ir.kind === 'insert' && hasNestedInserts(ir) ? null : compile(
      ir.kind === 'insert' ? compileInsert(ir) : ir.kind === 'update' ? compileUpdate(ir) : compileDelete(ir));
    compiledOnce.set(ir, c);
  }
  return c ?? undefined;
}

/** Runs `ir`; resolves to the field's JSON text (`null` for a `_by_pk`/`_one` field with no row). */
export async function runMutation(ir: MutationIR, rc: MutationRunContext): Promise<string | null> {
  const one = singleStatement(ir);
  if (one === undefined) return runNestedInsert(ir as InsertIR, rc);
  return rc.query(one.text, resolveParams(one.params, rc.variables, rc.session));
}

/** The SQL text and parameter values of a mutation that is one statement (for tests and explain). */
export function mutationSqlText(ir: MutationIR): { text: string; params: ReturnType<typeof compile>['params'] } {
  const frag = ir.kind === 'insert' ? compileInsert(ir) : ir.kind === 'update' ? compileUpdate(ir) : compileDelete(ir);
  return compile(frag);
}

async function runStatement(frag: SqlFragment, rc: MutationRunContext): Promise<string | null> {
  const { text, params } = compile(frag);
  return rc.query(text, resolveParams(params, rc.variables, rc.session));
}

interface InsertedRow {
  /** The row in its composite type's text form (read back exactly by the final statement). */
  text: string;
  /** Values of the requested key columns, as text. */
  keys: Map<string, string | null>;
}

interface StepResult {
  affected: number;
  rows: InsertedRow[];
}

async function runNestedInsert(ir: InsertIR, rc: MutationRunContext): Promise<string | null> {
  const res = await insertRows(ir, ir.rows, [], [], rc);
  const out = rowsOutputStatement(ir, res.rows.map((r) => r.text), res.affected, ir.output);
  return runStatement(out, rc);
}

/** Inserts `rows` of `ir.table` with `extra` columns (from a parent) added to each; returns `keyColumns` of each. */
async function insertRows(
  ir: InsertIR, rows: InsertRowIR[], extra: ColumnValue[], keyColumns: string[], rc: MutationRunContext,
): Promise<StepResult> {
  const flat = rows.every((r) => r.objectRelationships.length === 0 && r.arrayRelationships.length === 0);
  if (flat) return insertStep(ir, rows.map((r) => [...r.columns, ...extra]), keyColumns, rc);
  const total: StepResult = { affected: 0, rows: [] };
  for (const row of rows) {
    const one = await insertRow(ir, row, extra, keyColumns, rc);
    total.affected += one.affected;
    total.rows.push(...one.rows);
  }
  return total;
}

/** One row with its nested parents (inserted first) and children (inserted after). */
async function insertRow(
  ir: InsertIR, row: InsertRowIR, extra: ColumnValue[], keyColumns: string[], rc: MutationRunContext,
): Promise<StepResult> {
  let affected = 0;
  const columns = [...row.columns, ...extra];
  for (const rel of row.objectRelationships) {
    const parent = await insertRows(rel.insert, rel.insert.rows, [], rel.join.mapping.map((m) => m.remote), rc);
    const inserted = parent.rows[0];
    if (!inserted) {
      throw new ApiError('not-supported',
        `cannot proceed to insert object relation "${rel.name}" since insert to table "${displayName(rel.insert.table)}" affects zero rows`);
    }
    affected += parent.affected;
    for (const m of rel.join.mapping) columns.push(keyValue(m.local, inserted.keys.get(m.remote) ?? null));
  }
  const childKeys = row.arrayRelationships.flatMap((r) => r.join.mapping.map((m) => m.local));
  const self = await insertStep(ir, [columns], [...new Set([...keyColumns, ...childKeys])], rc);
  affected += self.affected;
  const inserted = self.rows[0];
  if (row.arrayRelationships.length > 0 && !inserted) {
    throw new ApiError('not-supported',
      `cannot proceed to insert array relations since insert to table "${displayName(ir.table)}" affects zero rows`);
  }
  for (const rel of row.arrayRelationships) {
    const fromParent = rel.join.mapping.map((m) => keyValue(m.remote, inserted.keys.get(m.local) ?? null));
    affected += (await insertRows(rel.insert, rel.insert.rows, fromParent, [], rc)).affected;
  }
  return { affected, rows: self.rows };
}

/** A key value carried from one row to another: sent as text without a cast, so Postgres types it by the target column. */
function keyValue(column: string, value: string | null): ColumnValue {
  return { column, value: { source: { kind: 'value', value }, pgType: '' } };
}

/** One INSERT statement for `rows`; returns the inserted rows' texts and `keyColumns`. */
async function insertStep(ir: InsertIR, rows: ColumnValue[][], keyColumns: string[], rc: MutationRunContext): Promise<StepResult> {
  const out = await runStatement(insertRowsStatement(ir, rows, keyColumns), rc);
  const parsed = JSON.parse(out ?? '{"rows":[]}') as { rows: Array<{ text: string; keys: Array<string | null> }> };
  return {
    affected: parsed.rows.length,
    rows: parsed.rows.map((r) => ({ text: r.text, keys: new Map(keyColumns.map((k, i) => [k, r.keys[i] ?? null])) })),
  };
}
