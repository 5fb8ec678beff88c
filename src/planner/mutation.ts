/**
 * Mutation root fields: planning (`mutationRootPlanner`, named in planners.ts for the `ext:insert`...
 * kinds the mutation schema tags its fields with) and execution. All mutation root fields of one
 * request run in order inside ONE read-write transaction carrying the session variables; the
 * first error rolls everything back and is reported with the field's path, as Hasura does
 * (`$.selectionSet.insert_author.args.objects` for inserts).
 */
import { isApiError, type Session } from '../core/index.js';
import type { Db, PipelineResult } from '../execution/index.js';
import type { MutationIR } from '../ir/index.js';
import { compile, compileSelect, resolveParams, runMutation, singleStatement, type CompiledStatement } from '../sql/index.js';
import { planSelect } from './select.js';
import { functionSource } from './functionSource.js';
import type { MutationFieldMeta, NField, OutputFieldMeta } from '../graphql/index.js';
import type { PlanContext } from './context.js';
import type { RootFieldPlan, RootFieldPlanner } from './planOperation.js';
import { planInsert, planInsertOne } from './mutationInsert.js';
import { planDelete, planUpdate } from './mutationUpdate.js';
import { emptyResponse } from './mutationOutput.js';
import { mutationReadsNoSession } from './sessionFree.js';
import type { TableInfo } from '../metadata/index.js';

/**
 * The plan of one statement of a mutation root field: a table mutation's IR, or (a function exposed
 * as a mutation) a ready select statement over the function.
 */
export type StatementPlan = (
  | { ir: MutationIR; statement?: undefined }
  | { statement: CompiledStatement; ir?: undefined }
) & {
  /** Path reported with database errors of this field. */
  errorPath: string;
  /** When set, the field changes nothing and answers this JSON without touching the database. */
  constant?: string;
  /** True when the statement provably never reads the session variables (sessionFree.ts). */
  sessionFree?: boolean;
};

/**
 * The plan of one mutation root field: one statement, or for `update_<t>_many` one per update, run in
 * order in the same transaction (each sees the rows the ones before it changed), the field answering
 * the list of their responses.
 */
export type MutationFieldPlan = StatementPlan | { parts: StatementPlan[] };

export const MUTATION_PLAN_KINDS: ReadonlySet<string> = new Set(['ext:insert', 'ext:insert_one', 'ext:update', 'ext:update_by_pk', 'ext:update_many', 'ext:delete', 'ext:delete_by_pk', 'ext:function_mutation']);

/** Plans one mutation root field (the schema tagged it with `meta`). */
export function planMutationField(field: NField, meta: MutationFieldMeta, ctx: PlanContext): MutationFieldPlan {
  switch (meta.kind) {
    case 'ext:insert':
      return irPlan(planInsert(ctx, meta.table, field), `${field.path}.args.objects`, meta.table);
    case 'ext:insert_one':
      return irPlan(planInsertOne(ctx, meta.table, field), `${field.path}.args.object`, meta.table);
    case 'ext:update':
    case 'ext:update_by_pk': {
      const { ir, empty } = planUpdate(ctx, meta.table, field, meta.kind === 'ext:update_by_pk' ? meta.pkColumns : undefined);
      const plan: StatementPlan = irPlan(ir, '$', meta.table);
      if (empty) plan.constant = emptyResponse(ir.output);
      return plan;
    }
    case 'ext:update_many': {
      const updates = field.args.get('updates');
      const items = updates?.kind === 'list' ? updates.items : [];
      const parts = items.map((item, i): StatementPlan => {
        const args = new Map(item.kind === 'object' ? item.fields : []);
        const { ir, empty } = planUpdate(ctx, meta.table, { ...field, args, path: `${field.path}.args.updates[${i}]` });
        return empty ? { ir, errorPath: '$', constant: emptyResponse(ir.output) } : irPlan(ir, '$', meta.table);
      });
      return { parts };
    }
    case 'ext:function_mutation': {
      const ir = { ...planSelect(ctx, meta.table, field), source: functionSource(meta.fn, field) };
      return { statement: compile(compileSelect(ir)), errorPath: '$' };
    }
    case 'ext:delete':
      return irPlan(planDelete(ctx, meta.table, field), '$', meta.table);
    case 'ext:delete_by_pk':
      return irPlan(planDelete(ctx, meta.table, field, meta.pkColumns), '$', meta.table);
  }
}

/** The plan of a table mutation's IR, marked `sessionFree` when it provably never reads the session. */
function irPlan(ir: MutationIR, errorPath: string, table: TableInfo): StatementPlan {
  return mutationReadsNoSession(ir, table) ? { ir, errorPath, sessionFree: true } : { ir, errorPath };
}

/** The planner of table mutation root fields (every kind of MUTATION_PLAN_KINDS). */
export const mutationRootPlanner: RootFieldPlanner = (field: NField, meta: OutputFieldMeta, ctx: PlanContext): RootFieldPlan => ({
  alias: field.alias,
  kind: meta.kind as `ext:${string}`,
  plan: planMutationField(field, meta as unknown as MutationFieldMeta, ctx),
});

/** True for the root-field plans this module executes. */
export const isMutationFieldPlan = <P extends { kind: string }>(p: P): p is P & { kind: `ext:${string}`; plan: MutationFieldPlan } =>
  MUTATION_PLAN_KINDS.has(p.kind);

export interface ExecuteOptions {
  /** Named prepared statements (default true). */
  prepare?: boolean;
  /** Set the session variables even when no statement can read them (`--skip-unread-session false`). */
  alwaysSetSession?: boolean;
  /** The source's `isolation_level`: above read committed the statements run in a transaction at that level. */
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  /**
   * Answers of the one-pipeline path as the bytes Postgres sent (`Db.pipeline`'s `bytes`), for a
   * response assembled from them; the other paths still answer strings.
   */
  bytes?: boolean;
}

/** A field's answer: JSON text, its bytes (with `bytes`), or null. */
export type MutationAnswer = string | Buffer | null;

/**
 * Runs mutation plans in order in one transaction; resolves to each field's JSON text (`null`
 * for a `_one`/`_by_pk` field that matched no row), or rejects with the first error (nothing is
 * kept then). When every field is one statement (all but nested inserts), the session variables
 * and the statements go to Postgres as ONE pipeline: one round trip, one implicit transaction
 * (`Db.pipeline`); the session variables only when some statement may read them (sessionFree.ts). Nested inserts need the keys of earlier steps, so they run step by step in an
 * explicit transaction.
 */
export async function executeMutations(
  db: Db, fieldPlans: readonly MutationFieldPlan[], session: Session, variables: Record<string, unknown> | undefined,
  opts: ExecuteOptions & { bytes: true },
): Promise<MutationAnswer[]>;
export async function executeMutations(
  db: Db, fieldPlans: readonly MutationFieldPlan[], session: Session, variables: Record<string, unknown> | undefined,
  opts?: ExecuteOptions,
): Promise<Array<string | null>>;
export async function executeMutations(
  db: Db, fieldPlans: readonly MutationFieldPlan[], session: Session, variables: Record<string, unknown> | undefined,
  opts: ExecuteOptions = {},
): Promise<MutationAnswer[]> {
  if (!fieldPlans.some((p) => 'parts' in p)) return executeStatements(db, fieldPlans as StatementPlan[], session, variables, opts);
  // update_<t>_many: its updates run as statements of their own; its answer is the list of theirs.
  const plans = fieldPlans.flatMap((p) => ('parts' in p ? p.parts : [p]));
  const results = await executeStatements(db, plans, session, variables, { ...opts, bytes: false });
  let k = 0;
  return fieldPlans.map((p) => ('parts' in p ? `[${p.parts.map(() => results[k++] ?? 'null').join(',')}]` : results[k++]!));
}

/**
 * `prepare`: statements are prepared on the connection; `isolation`: the source's `isolation_level`
 * (a level above read committed opens the transaction with it, instead of the one-round-trip pipeline).
 */
async function executeStatements(
  db: Db, plans: readonly StatementPlan[], session: Session, variables: Record<string, unknown> | undefined,
  opts: ExecuteOptions,
): Promise<MutationAnswer[]> {
  const statements = plans.map((p) => (p.constant !== undefined ? undefined : p.statement ?? singleStatement(p.ir)));
  const isolation = opts.isolation === 'read committed' ? undefined : opts.isolation;
  if (isolation === undefined && plans.every((p, i) => p.constant !== undefined || statements[i] !== undefined)) {
    const sent: Array<{ text: string; values: unknown[] }> = [];
    const fieldOf: number[] = [];
    statements.forEach((s, i) => {
      if (s === undefined) return;
      sent.push({ text: s.text, values: resolveParams(s.params, variables, session) });
      fieldOf.push(i);
    });
    const out: MutationAnswer[] = plans.map((p) => p.constant ?? null);
    if (sent.length === 0) return out;
    // The session variables are set unless no statement can read them (sessionFree.ts): one
    // statement less to send, bind and run.
    const needsSession = opts.alwaysSetSession === true || plans.some((p) => p.constant === undefined && p.sessionFree !== true);
    const pipelineOpts = { session: needsSession ? session : undefined, prepare: opts.prepare };
    const r: PipelineResult<MutationAnswer> = opts.bytes === true ? await db.pipeline(sent, { ...pipelineOpts, bytes: true }) : await db.pipeline(sent, pipelineOpts);
    if (!r.ok) {
      const e = r.error;
      throw e.path === '$' ? e.withPathPrefix(plans[fieldOf[r.index]!]!.errorPath) : e;
    }
    r.results.forEach((text, k) => (out[fieldOf[k]!] = text));
    return out;
  }
  return db.transaction(isolation ? { session, isolation } : { session }, async (client) => {
    const out: Array<string | null> = [];
    for (const plan of plans) {
      if (plan.constant !== undefined) {
        out.push(plan.constant);
        continue;
      }
      try {
        out.push(plan.statement
          ? await client.queryJsonText(plan.statement.text, resolveParams(plan.statement.params, variables, session))
          : await runMutation(plan.ir, { query: (text, values) => client.queryJsonText(text, values), session, variables }));
      } catch (e) {
        throw isApiError(e) && e.path === '$' ? e.withPathPrefix(plan.errorPath) : e;
      }
    }
    return out;
  });
}
