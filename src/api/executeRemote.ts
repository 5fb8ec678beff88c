/**
 * Remote schemas in the GraphQL pipeline (named in executors.ts): remote query root fields
 * (`ext:remote`) and select root fields holding remote relationships (`ext:remote_join`, its
 * statement run here, then the joins) as query-field executors; remote mutation root fields as a
 * mutation-field executor, batched so each remote still gets one request per operation.
 */
import { ApiError } from '../core/index.js';
import type { CompiledOperation, CompiledRootField, RemoteJoinPlan } from '../planner/index.js';
import { resolveParams } from '../sql/index.js';
import {
  checkRemoteJoins, checkTypeRelJoins, executeRemoteFields, runRemoteJoins, runTypeRelJoins, type RemoteFieldPlan, type SourceQuery,
} from '../remoteSchemas/index.js';
import { sourceDb, type EngineContext } from '../appState.js';
import type { ExecutorArgs as Args, MutationFieldExecutor, QueryFieldsExecutor } from './executorTypes.js';

/** Requests sent to remotes for remote relationships since start (read by tests and benchmarks). */
export const remoteJoinRequests = { count: 0 };

/** Statements run for relationships to a source's table since start (read by tests and benchmarks). */
export const sourceJoinStatements = { count: 0 };

/** Runs a join's statement on a source's pool (its prepared-statement setting). */
export const sourceQuery = (ctx: EngineContext): SourceQuery => (source, text, params) => {
  const on = sourceDb(ctx, source);
  return on.db.queryJsonText(text, params, { prepare: on.prepare });
};

/**
 * `ext:remote` query root fields: one request per remote; then the relationships of the remote's
 * types to tables selected in them (one statement per target source per level).
 */
export const remoteQueryFields = async (fields: CompiledRootField[], args: Args) => {
  const plans = fields.map((f) => (f as { plan: RemoteFieldPlan }).plan);
  const cache = args.ctx.state.current;
  // What the client asked of the target rows' own remote relationships is checked before any call.
  for (const p of plans) if (p.typeRels) checkTypeRelJoins(p.typeRels, p.op, cache, args.variables, args.session.role);
  const out = await executeRemoteFields(plans, {
    cache, session: args.session, variables: args.variables, clientHeaders: args.clientHeaders, key: args.compiled,
  }, args.errors ?? [], args.responseHeaders);
  await Promise.all(plans.map(async (p) => {
    const text = p.typeRels ? out.get(p.alias) : undefined;
    if (text === undefined) return;
    const joined = await runTypeRelJoins(JSON.parse(text), p.typeRels!, p.op, {
      cache, session: args.session, variables: args.variables, clientHeaders: args.clientHeaders, requests: remoteJoinRequests,
      sourceQuery: sourceQuery(args.ctx), statements: sourceJoinStatements,
    });
    out.set(p.alias, JSON.stringify(joined));
  }));
  return out;
};

/** `ext:remote_join` select root fields: the statement, then the joins. */
export const remoteJoinFields: QueryFieldsExecutor = async (fields, args) => {
  const out = new Map<string, string>();
  // What the client asked of each remote relationship is checked before any statement runs.
  for (const f of fields) checkRemoteJoins((f as { plan: RemoteJoinPlan }).plan, args.ctx.state.current, args.variables, args.session.role);
  await Promise.all(fields.map(async (f) => {
    const plan = (f as { plan: RemoteJoinPlan }).plan;
    // The root field's statement on its own source's pool.
    const on = sourceDb(args.ctx, 'source' in f ? f.source : undefined);
    const text = await on.db.queryJsonText(plan.text, resolveParams(plan.params, args.variables, args.session), { prepare: on.prepare });
    const root = text === null ? null : JSON.parse(text);
    const joined = await runRemoteJoins(root, plan, {
      cache: args.ctx.state.current, session: args.session, variables: args.variables, clientHeaders: args.clientHeaders, requests: remoteJoinRequests,
      sourceQuery: sourceQuery(args.ctx), statements: sourceJoinStatements,
    });
    out.set(f.alias, JSON.stringify(joined));
  }));
  return out;
};

/** Per operation run: one promise per remote, answering every remote mutation field of it. */
const mutationBatches = new WeakMap<Args, Map<string, Promise<Map<string, string>>>>();

/** `ext:remote` mutation root fields, batched per remote. */
export const remoteMutationField: MutationFieldExecutor = async (field, args) => {
  const plan = (field as { plan: RemoteFieldPlan }).plan;
  let byRemote = mutationBatches.get(args);
  if (!byRemote) mutationBatches.set(args, (byRemote = new Map()));
  let batch = byRemote.get(plan.remote);
  if (!batch) {
    const fields = (args.compiled as CompiledOperation).fields.filter((f) => f.kind === 'ext:remote' && (f as { plan: RemoteFieldPlan }).plan.remote === plan.remote);
    const errors: unknown[] = [];
    batch = remoteQueryFields(fields, { ...args, errors }).then((values) => {
      if (errors.length > 0) {
        const first = errors[0] as { message?: unknown };
        throw new ApiError('unexpected', typeof first?.message === 'string' ? first.message : 'Errors from remote server', { internal: errors });
      }
      return values;
    });
    byRemote.set(plan.remote, batch);
  }
  return (await batch).get(plan.alias) ?? 'null';
};
