/**
 * `<t>_stream(batch_size, cursor: [{initial_value: {<column>: v}, ordering}], where)` → the plan of
 * a streaming subscription (`ext:stream`): one statement with two columns,
 *
 *   SELECT root, CASE WHEN n = <limit> THEN last ELSE greatest($cursor, $bound)::text END AS cursor, n   (DESC: last, if any)
 *     FROM (SELECT (<the rows: where AND the role's filter AND <column> > $cursor AND <column> <= $bound,
 *                    ORDER BY <column>, LIMIT least(batch_size, the role's limit)>) AS root,
 *                  <the same rows' last cursor value> AS last, <their number> AS n)
 *
 * `$cursor` reads the variable `STREAM_CURSOR_VARIABLE`, which the stream runner sets to where the
 * subscriber is (`initial` at first); `$bound` (`STREAM_BOUND_VARIABLE`) is the highest cursor value
 * no transaction can still commit a row below (subscriptions/streamMarks.ts; NULL: none yet, no
 * rows). A batch that is not full has delivered every row up to the bound, so the next cursor is the
 * bound. With `ordering: DESC`: `<` and no bound (rows already committed, walked downwards). As in
 * Hasura, exactly one cursor column; it should be unique (rows sharing a value across a batch
 * boundary are delivered once, only the first of them).
 *
 * Inherited roles: a cursor column the role sees only in some rows is null in the others wherever
 * it steers the stream (comparison, bound, order, next cursor), so those rows never stream, and the
 * next cursor is the last row delivered (never the bound, a value of every row, hidden or not).
 */
import type { QualifiedTable } from '../core/index.js';
import type { BoolExp, SelectIR } from '../ir/index.js';
import { vf, type AnnValue, type NField, type OutputFieldMeta, type StreamFieldMeta } from '../graphql/index.js';
import { compile, compileSelect, sql, type Param } from '../sql/index.js';
import { columnValueType, plainValue, type PlanContext } from './context.js';
import type { RootFieldPlan } from './planOperation.js';
import { checkLimitValue } from './rowCount.js';
import { planSelect } from './select.js';

/** The variable the cursor comparison reads (not a GraphQL name a client can declare: `$` names cannot start with a digit). */
export const STREAM_CURSOR_VARIABLE = '0cursor';
/** The variable of the delivery bound (ASC streams). */
export const STREAM_BOUND_VARIABLE = '0bound';

export interface StreamPlan {
  alias: string;
  /** Three columns: `root` (the batch's JSON array), `cursor` (where the subscriber is next, as text) and `n` (rows in the batch). */
  text: string;
  params: Param[];
  /** The cursor's starting value, as the client gave it. */
  initial: unknown;
  /** The table and cursor column (the delivery bound is the column's highest committed value). */
  table: QualifiedTable;
  column: string;
  desc: boolean;
  /** Rows per batch: a batch of `limit` rows may be followed by more. */
  limit: number;
}

function field(v: AnnValue | undefined, name: string): AnnValue | undefined {
  return v?.kind === 'object' ? v.fields.find(([k]) => k === name)?.[1] : undefined;
}

export function planStream(f: NField, meta: OutputFieldMeta, ctx: PlanContext): RootFieldPlan {
  const table = (meta as StreamFieldMeta).table;
  const view = ctx.view(table, f.path);
  const argsPath = `${f.path}.args`;
  const batch = f.args.get('batch_size');
  if (!batch || batch.kind !== 'scalar') throw vf('expecting Integer value for "batch_size"', `${argsPath}.batch_size`);
  ctx.bake(batch);
  const batchSize = checkLimitValue(batch.value, `${argsPath}.batch_size`);
  const cursorArg = f.args.get('cursor');
  ctx.bake(cursorArg);
  const cursors = cursorArg?.kind === 'list' ? cursorArg.items : cursorArg && cursorArg.kind !== 'null' ? [cursorArg] : [];
  if (cursors.length !== 1) throw vf('one streaming column field is expected', `${argsPath}.cursor`);
  const initialValue = field(cursors[0], 'initial_value');
  const given = initialValue?.kind === 'object' ? initialValue.fields.filter(([, v]) => v.kind !== 'null') : [];
  if (given.length !== 1) throw vf('exactly one column should be provided in the initial_value of the cursor', `${argsPath}.cursor.initial_value`);
  const [gqlName, value] = given[0]!;
  const column = view.columns.find((c) => c.gqlName === gqlName);
  if (!column) throw vf(`column ${JSON.stringify(gqlName)} not found`, `${argsPath}.cursor.initial_value`);
  const ordering = field(cursors[0], 'ordering');
  const desc = ordering?.kind === 'enum' && ordering.value === 'DESC';

  const valueType = columnValueType(column);
  const variable = (name: string) => ({ source: { kind: 'variable' as const, name }, pgType: valueType });
  // Inherited roles: a cursor column the role sees only in some rows is null in the others, in the
  // cursor comparison, the bound, the order and the next cursor alike: those rows never stream.
  const visibleIf = ctx.columnCondition(table, column.name);
  const col = visibleIf ? { column: column.name, pgType: column.pgType, visibleIf } : { column: column.name, pgType: column.pgType };
  const cursorCompare: BoolExp = { kind: 'compare', column: col, op: desc ? '_lt' : '_gt', value: variable(STREAM_CURSOR_VARIABLE) };
  const bounded: BoolExp = desc ? cursorCompare : { kind: 'and', items: [cursorCompare, { kind: 'compare', column: col, op: '_lte', value: variable(STREAM_BOUND_VARIABLE) }] };
  const base = planSelect(ctx, table, f, { extraWhere: bounded });
  const limit = view.limit === null ? batchSize : Math.min(batchSize, view.limit);
  const target = visibleIf ? { kind: 'column' as const, column: column.name, visibleIf } : { kind: 'column' as const, column: column.name };
  const rows: SelectIR = { ...base, orderBy: [{ target, direction: desc ? 'desc' : 'asc' }], limit };
  const cursorRows: SelectIR = { ...rows, fields: [{ alias: 'c', kind: 'column', ...col }] };
  const cursorParam = sql.param(variable(STREAM_CURSOR_VARIABLE).source, valueType);
  const [r, c] = [sql.ident('_r'), sql.ident('_c')];
  // ASC: a batch that is not full delivered everything up to the bound; DESC: the last row, if any.
  // A cursor column hidden in some rows (inherited roles) moves to the last row delivered only: the
  // bound is the highest value of every row, hidden ones included, and jumping to it would skip
  // later rows below it, which would tell the subscriber something about the hidden values.
  const next = desc || visibleIf
    ? sql`CASE WHEN ${r}.${sql.ident('n')} > 0 THEN ${r}.${sql.ident('last')} ELSE ${cursorParam}::text END`
    : sql`CASE WHEN ${r}.${sql.ident('n')} >= ${sql.int(limit)} THEN ${r}.${sql.ident('last')} ELSE greatest(${cursorParam}, ${sql.param(variable(STREAM_BOUND_VARIABLE).source, valueType)})::text END`;
  const compiled = compile(sql`SELECT ${r}.${sql.ident('root')}, ${next} AS ${sql.ident('cursor')}, ${r}.${sql.ident('n')}
FROM (SELECT (${compileSelect(rows)}) AS ${sql.ident('root')}, ${c}.${sql.ident('j')} -> -1 ->> 'c' AS ${sql.ident('last')}, coalesce(json_array_length(${c}.${sql.ident('j')}), 0) AS ${sql.ident('n')}
  FROM (SELECT (${compileSelect(cursorRows)})::json AS ${sql.ident('j')}) AS ${c}) AS ${r}`);
  const plan: StreamPlan = { alias: f.alias, text: compiled.text, params: compiled.params, initial: plainValue(value), table: table.name, column: column.name, desc, limit };
  return { alias: f.alias, kind: 'ext:stream', plan };
}
