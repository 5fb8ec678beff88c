/**
 * A validated operation → one plan per root field, in response order:
 * `select` / `select_by_pk` (SelectIR; by-pk is a single row) / `aggregate` (AggregateIR) /
 * `typename` (a constant) / `introspection` (run by graphql-js). Root fields tagged `ext:*`
 * (mutations, actions, remote fields) go to the planner named for their kind (`RootFieldPlanners`).
 */
import { isApiError } from '../core/index.js';
import { andAll, type AggregateIR, type BoolExp, type SelectField, type SelectIR } from '../ir/index.js';
import { anyGraphqlCase, chosenPath, isNamespaceField, namespacedAlias, outputMeta, vf, type NField, type NormalizedOperation, type OutputFieldMeta } from '../graphql/index.js';
import type { SchemaCache, TableInfo } from '../metadata/index.js';
import type { SqlFragment } from '../sql/index.js';
import { PlanContext, columnValueType, irValue, type RuntimeCheck } from './context.js';
import { functionSource } from './functionSource.js';
import { nativeQuerySource } from './nativeQuerySource.js';
import { planAggregate, planSelect } from './select.js';
import { compile, compileAggregate, compileSelect, type Param } from '../sql/index.js';

/** A root field's plan; `source`: the Postgres source it runs on (absent: `default`). */
export type RootFieldPlan = RootFieldPlanOf & { source?: string };

type RootFieldPlanOf =
  | { alias: string; kind: 'select'; ir: SelectIR }
  | { alias: string; kind: 'select_by_pk'; ir: SelectIR }
  | { alias: string; kind: 'aggregate'; ir: AggregateIR }
  | { alias: string; kind: 'typename'; value: string }
  | { alias: string; kind: 'introspection'; field: NField }
  /** Contributed by later work as one ready SELECT (one row, one json column): compiled and run like select fields (actions' async results). */
  | { alias: string; kind: 'sql_fragment'; frag: SqlFragment }
  /** Contributed by later work; `plan` is whatever its executor understands. */
  | { alias: string; kind: `ext:${string}`; plan: unknown };

export interface OperationPlan {
  kind: NormalizedOperation['kind'];
  fields: RootFieldPlan[];
  /** Variables whose values are baked into the plan (part of the plan-cache key). */
  staticVars: string[];
  /** Checks on variable values to run before each execution. */
  checks: RuntimeCheck[];
}

/** Plans a root field of an extension kind (`ext:insert`...). */
export type RootFieldPlanner = (field: NField, meta: OutputFieldMeta, ctx: PlanContext, op: NormalizedOperation) => RootFieldPlan;

/**
 * The plan of a select root field that holds remote relationships (`ext:remote_join`): its one
 * statement, and the IR to find the join places in the JSON it returns.
 */
export interface RemoteJoinPlan extends RemoteJoinShape {
  text: string;
  params: Param[];
}

/**
 * Where a response's remote relationships sit: a select / aggregate root field's IR, or the
 * selections of a JSON value built elsewhere (`rows`: an action's output, whose table
 * relationships carry them, and whose nested objects hold more of them), with the operation's
 * fragments for the remote requests.
 */
export interface RemoteJoinShape {
  shape:
    | { kind: 'select' | 'select_by_pk'; ir: SelectIR }
    | { kind: 'aggregate'; ir: AggregateIR }
    | { kind: 'rows'; fields: readonly RowShapeField[] };
  op: NormalizedOperation;
}

/** A field of a `rows` shape: a select field, or a nested object (or list of them) with its own fields. */
export type RowShapeField = SelectField | { alias: string; kind: 'nested'; fields: readonly RowShapeField[] };
/** The planners of root fields whose schema tag is an `ext:` kind (mutations, actions, remote fields). */
export type RootFieldPlanners = Readonly<Record<`ext:${string}`, RootFieldPlanner>>;

export interface PlanOptions {
  cache: SchemaCache;
  role: string;
  stringifyNumericTypes: boolean;
  planners: RootFieldPlanners;
  /** A trusted backend's request: the role's `backend_only` mutations may be planned. */
  backendOnly?: boolean;
}

export function planOperation(op: NormalizedOperation, opts: PlanOptions): OperationPlan {
  if (!anyGraphqlCase(opts.cache)) return planWith(op, opts);
  try {
    return planWith(op, opts);
  } catch (e) {
    // The planner's paths name arguments by their hasura-default names: give them the schema's.
    if (isApiError(e)) e.path = chosenPath(op, e.path);
    throw e;
  }
}

function planWith(op: NormalizedOperation, opts: PlanOptions): OperationPlan {
  const ctx = new PlanContext(opts.cache, opts.role, opts.stringifyNumericTypes, opts.backendOnly);
  const fields = rootFields(op.fields).map(({ f, nested }) => withRemoteJoins(ctx, op, nested ? planNested(ctx, op, f, opts.planners) : planRootField(ctx, op, f, opts.planners)));
  return { kind: op.kind, fields, staticVars: [...ctx.staticVars], checks: ctx.checks };
}

/**
 * The root fields to plan: a source's namespace field (graphql/schema/namespaceFields.ts) gives the fields
 * chosen under it, each aliased `<namespace alias>.<alias>` (their paths stay those under the namespace).
 */
function rootFields(fields: readonly NField[]): Array<{ f: NField; nested: boolean }> {
  const out: Array<{ f: NField; nested: boolean }> = [];
  for (const f of fields) {
    if (f.selection && isNamespaceField(f.def)) for (const c of f.selection) out.push({ f: { ...c, alias: namespacedAlias(f.alias, c.alias) }, nested: true });
    else out.push({ f, nested: false });
  }
  return out;
}

/** A field chosen under a namespace field: `__typename` is the namespace type's name, others plan as root fields. */
function planNested(ctx: PlanContext, op: NormalizedOperation, f: NField, planners: RootFieldPlanners): RootFieldPlan {
  if (f.name === '__typename') return { alias: f.alias, kind: 'typename', value: f.parentType.name };
  return planRootField(ctx, op, f, planners);
}

/** A select root field with remote relationships becomes an `ext:remote_join` (see RemoteJoinPlan). */
function withRemoteJoins(ctx: PlanContext, op: NormalizedOperation, plan: RootFieldPlan): RootFieldPlan {
  if (ctx.remoteJoins === 0) return plan;
  ctx.remoteJoins = 0;
  let shape: RemoteJoinPlan['shape'];
  let compiled: { text: string; params: Param[] };
  if (plan.kind === 'select' || plan.kind === 'select_by_pk') {
    shape = { kind: plan.kind, ir: plan.ir };
    compiled = compile(compileSelect(plan.ir, plan.kind === 'select_by_pk' ? { single: true } : undefined));
  } else if (plan.kind === 'aggregate') {
    shape = { kind: 'aggregate', ir: plan.ir };
    compiled = compile(compileAggregate(plan.ir));
  } else {
    // Mutation responses (and other kinds) would return the join columns instead of the remote's answer.
    throw vf(`remote relationships are not supported in the response of ${JSON.stringify(plan.alias)}`, '$');
  }
  const joined: RootFieldPlan = { alias: plan.alias, kind: 'ext:remote_join', plan: { ...compiled, shape, op } satisfies RemoteJoinPlan };
  // The root field's statement still runs on its own source.
  return plan.source === undefined ? joined : { ...joined, source: plan.source };
}

function planRootField(parent: PlanContext, op: NormalizedOperation, f: NField, planners: RootFieldPlanners): RootFieldPlan {
  if (f.name === '__typename') return { alias: f.alias, kind: 'typename', value: op.rootType.name };
  if (f.name === '__schema' || f.name === '__type') return { alias: f.alias, kind: 'introspection', field: f };
  const meta = outputMeta(f.def);
  if (!meta) throw vf(`field ${f.name} has no plan`, f.path);
  // A root field of another source's table is planned over that source's cache and runs on its pool.
  const source = (meta as { table?: TableInfo }).table?.source;
  if (source === undefined) return planRootFieldOn(parent, op, f, meta, planners);
  const sc = parent.cache.sources?.get(source);
  if (!sc) throw vf(`field ${f.name} cannot be planned: source ${JSON.stringify(source)} is not available`, f.path);
  return { ...planRootFieldOn(parent.forSource(sc), op, f, meta, planners), source };
}

function planRootFieldOn(ctx: PlanContext, op: NormalizedOperation, f: NField, meta: OutputFieldMeta, planners: RootFieldPlanners): RootFieldPlan {
  switch (meta.kind) {
    case 'select':
      return { alias: f.alias, kind: 'select', ir: planSelect(ctx, meta.table, f) };
    case 'select_by_pk': {
      const eqs: BoolExp[] = meta.pkColumns.map((c) => {
        const v = f.args.get(c.gqlName);
        if (!v || v.kind === 'null') throw vf(`the required argument "${c.gqlName}" is missing`, `${f.path}.args`);
        return { kind: 'compare', column: ctx.columnRef(meta.table, c), op: '_eq', value: irValue(v, columnValueType(c)) };
      });
      return { alias: f.alias, kind: 'select_by_pk', ir: planSelect(ctx, meta.table, f, { extraWhere: andAll(eqs), noArgs: true }) };
    }
    case 'select_aggregate':
      return { alias: f.alias, kind: 'aggregate', ir: planAggregate(ctx, meta.table, f) };
    case 'function':
      return { alias: f.alias, kind: 'select', ir: { ...planSelect(ctx, meta.table, f), source: functionSource(meta.fn, f) } };
    case 'function_aggregate':
      return { alias: f.alias, kind: 'aggregate', ir: { ...planAggregate(ctx, meta.table, f), source: functionSource(meta.fn, f) } };
    case 'native_query':
      return { alias: f.alias, kind: 'select', ir: { ...planSelect(ctx, meta.table, f), source: nativeQuerySource(meta.nq, f) } };
    default: {
      const planner = Object.hasOwn(planners, meta.kind) ? planners[meta.kind as `ext:${string}`] : undefined;
      if (!planner) throw vf(`field ${f.name} cannot be planned`, f.path);
      return planner(f, meta, ctx, op);
    }
  }
}
