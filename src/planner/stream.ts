/**
 * `<t>_stream(batch_size, cursor: [{initial_value: {<column>: v}, ordering}], where)` → the plan of
 * a streaming subscription (`ext:stream`): one statement with two columns,
 *
 *   SELECT (<the rows: where AND the role's filter AND <column> > $cursor, ORDER BY <column>,
 *            LIMIT least(batch_size, the role's limit)>) AS root,
 *          (SELECT (<the same rows' cursor column>) -> -1 ->> 'c') AS cursor
 *
 * `$cursor` reads the variable `STREAM_CURSOR_VARIABLE`, which the stream runner sets to the last
 * cursor value it delivered (`initial` at first); `<`/DESC for `ordering: DESC`. As in Hasura,
 * exactly one cursor column; it should be unique (rows sharing a value across a batch boundary are
 * delivered once, only the first of them).
 */
import type { BoolExp, SelectIR } from '../ir/index.js';
import { vf, type AnnValue, type NField, type OutputFieldMeta, type StreamFieldMeta } from '../graphql/index.js';
import { compile, compileSelect, sql, type Param } from '../sql/index.js';
import { columnValueType, plainValue, type PlanContext } from './context.js';
import type { RootFieldPlan } from './planOperation.js';
import { checkLimitValue } from './rowCount.js';
import { planSelect } from './select.js';

/** The variable the cursor comparison reads (not a GraphQL name a client can declare: `$` names cannot start with a digit). */
export const STREAM_CURSOR_VARIABLE = '0cursor';

export interface StreamPlan {
  alias: string;
  /** Two columns: `root` (the batch's JSON array) and `cursor` (its last cursor value as text, NULL when empty). */
  text: string;
  params: Param[];
  /** The cursor's starting value, as the client gave it. */
  initial: unknown;
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

  const cursorCompare: BoolExp = {
    kind: 'compare',
    column: { column: column.name, pgType: column.pgType },
    op: desc ? '_lt' : '_gt',
    value: { source: { kind: 'variable', name: STREAM_CURSOR_VARIABLE }, pgType: columnValueType(column) },
  };
  const base = planSelect(ctx, table, f, { extraWhere: cursorCompare });
  const rows: SelectIR = {
    ...base,
    orderBy: [{ target: { kind: 'column', column: column.name }, direction: desc ? 'desc' : 'asc' }],
    limit: view.limit === null ? batchSize : Math.min(batchSize, view.limit),
  };
  const cursorRows: SelectIR = { ...rows, fields: [{ alias: 'c', kind: 'column', column: column.name, pgType: column.pgType }] };
  const compiled = compile(sql`SELECT (${compileSelect(rows)}) AS ${sql.ident('root')}, ((${compileSelect(cursorRows)}) -> -1 ->> 'c') AS ${sql.ident('cursor')}`);
  const plan: StreamPlan = { alias: f.alias, text: compiled.text, params: compiled.params, initial: plainValue(value) };
  return { alias: f.alias, kind: 'ext:stream', plan };
}
