/**
 * Planning of action root fields (named in appState.ts's `ENGINE_PARTS`): the arguments stay
 * annotated values (resolved against each request's variables at execution, so a cached plan is
 * reused), the output selection becomes `OutputSelection`, and when it reaches a table through a
 * relationship the output is built by ONE SQL statement (outputSql.ts) compiled here, once per
 * plan. The async result field (`<action>(id)`) is one ready statement over `hdb_action_log`
 * (`sql_fragment`): it runs like a select field, in combined queries and subscriptions alike.
 */
import type { AnnValue, NField } from '../graphql/index.js';
import { outputMeta } from '../graphql/index.js';
import type { ActionInfo, SourceRelInfo } from '../metadata/index.js';
import { qualifiedKey } from '../core/index.js';
import { PlanContext, planSelect, sourceJoin, type RemoteJoinShape, type RootFieldPlanner, type RowShapeField } from '../planner/index.js';
import { compile, type Param } from '../sql/index.js';
import type { ActionFieldMeta } from './actionSchema.js';
import type { OutputField, OutputSelection } from './outputSelection.js';
import { asyncResultSql, outputSql, relSelectField, RESPONSE_VARIABLE } from './outputSql.js';

export type { OutputField, OutputSelection } from './outputSelection.js';

export interface ActionFieldPlan {
  action: ActionInfo;
  args: Array<[string, AnnValue]>;
  /** The output selection (null for a scalar output type). */
  output: OutputSelection | null;
  /** The statement that builds the output JSON when it has relationships (reads variable RESPONSE_VARIABLE). */
  sql?: { text: string; params: Param[] };
  /**
   * When the tables reached from the output have remote relationships in the selection: where they
   * sit in the statement's JSON (the executor joins the remotes' answers in after the statement).
   */
  remoteJoin?: RemoteJoinShape;
}

export { RESPONSE_VARIABLE };

/** The output object selection of `f` (fields, `__typename`, relationships planned with the role's permissions). */
export function planOutput(ctx: PlanContext, selection: NField[] | null): OutputSelection | null {
  if (!selection) return null;
  let typename = '';
  const fields = selection.map((c): OutputField => {
    typename = c.parentType.name;
    if (c.name === '__typename') return { alias: c.alias, kind: 'typename', name: c.parentType.name };
    const m = outputMeta(c.def) as ActionFieldMeta | undefined;
    if (m?.kind === 'ext:action_rel' && m.rel.source !== undefined) {
      // A table of another source: its rows joined after the output's statement, one statement for the whole output.
      const target = ctx.onSource(m.rel.source, c.path);
      const table = target.cache.tables.get(qualifiedKey(m.rel.remoteTable))!;
      const select = planSelect(target, table, c, { noArgs: m.rel.type === 'object' });
      const rel: SourceRelInfo = { name: m.rel.name, source: m.rel.source, target: m.rel.remoteTable, type: m.rel.type, mapping: m.rel.mapping.map((x) => ({ local: x.field, remote: x.column })) };
      const join = sourceJoin(target, table, rel, m.rel.type === 'object' ? { kind: 'object', ir: { ...select, limit: 1 } } : { kind: 'array', ir: select }, c.path);
      ctx.remoteJoins += 1;
      return { alias: c.alias, kind: 'rel', rel: m.rel, select, join };
    }
    if (m?.kind === 'ext:action_rel') {
      const table = ctx.cache.tables.get(qualifiedKey(m.rel.remoteTable))!;
      const rel: OutputField = { alias: c.alias, kind: 'rel', rel: m.rel, select: planSelect(ctx, table, c, { noArgs: m.rel.type === 'object' }) };
      // Inherited roles: a join column the role does not see in a row reads null there and joins nothing.
      const remoteVisibleIf = ctx.columnsCondition(table, m.rel.mapping.map((x) => x.column));
      if (remoteVisibleIf) rel.remoteVisibleIf = remoteVisibleIf;
      return rel;
    }
    if (m?.kind === 'ext:action_output_field' && m.list !== undefined && c.selection) {
      return { alias: c.alias, kind: 'object', name: c.name, list: m.list, selection: planOutput(ctx, c.selection)! };
    }
    return { alias: c.alias, kind: 'field', name: c.name };
  });
  return { typename, fields };
}

/** Where the joins of an output sit: its relationships, and those inside its nested objects (any depth). */
function joinShape(sel: OutputSelection): RowShapeField[] {
  return sel.fields.flatMap((o): RowShapeField[] => {
    if (o.kind === 'rel') return [relSelectField(o)];
    if (o.kind === 'object') {
      const fields = joinShape(o.selection);
      return fields.length > 0 ? [{ alias: o.alias, kind: 'nested', fields }] : [];
    }
    return [];
  });
}

const hasRels = (o: OutputSelection | null): boolean => !!o?.fields.some((f) => f.kind === 'rel' || (f.kind === 'object' && hasRels(f.selection)));

/** Plans `ext:action` root fields. */
export const planActionField: RootFieldPlanner = (f, meta, ctx, op) => {
  const action = (meta as unknown as { action: ActionInfo }).action;
  const output = planOutput(ctx, f.selection);
  const plan: ActionFieldPlan = { action, args: [...f.args.entries()], output };
  if (output && hasRels(output)) plan.sql = compile(outputSql(output, action.output.kind === 'list'));
  if (output && ctx.remoteJoins > 0) {
    // Remote relationships of the tables the output reaches: joined here, not by the select path.
    ctx.remoteJoins = 0;
    plan.remoteJoin = { shape: { kind: 'rows', fields: joinShape(output) }, op };
  }
  return { alias: f.alias, kind: 'ext:action', plan };
};

/** Plans `ext:action_async_result` root fields (the async result query). */
export const planActionAsyncResult: RootFieldPlanner = (f, meta, ctx) => {
  const action = (meta as unknown as { action: ActionInfo }).action;
  const id = f.args.get('id')!;
  const parts = (f.selection ?? []).map((c) => {
    if (c.name === '__typename') return { alias: c.alias, kind: 'typename' as const, name: c.parentType.name };
    if (c.name === 'output') return { alias: c.alias, kind: 'output' as const, output: planOutput(ctx, c.selection) };
    return { alias: c.alias, kind: 'column' as const, name: c.name as 'id' | 'created_at' | 'errors' };
  });
  // One ready statement: run like a select field (combined with others, subscribable).
  return { alias: f.alias, kind: 'sql_fragment', frag: asyncResultSql(action, id, parts, ctx.role) };
};
