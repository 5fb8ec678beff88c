/**
 * Action root fields in GraphQL execution (named in executors.ts): the mutation field executor for
 * `ext:action` (sync call or async log insert, after any table mutations committed), and the executor
 * of query operations that contain query-action fields — the other root fields of such a query run
 * as usual (SQL statements, `__typename`, introspection through graphql-js).
 */
import { execute } from 'graphql';
import { ApiError } from '../core/index.js';
import { getRoleSchema } from '../graphql/index.js';
import { resolveParams } from '../sql/index.js';
import {
  runActionField, type ActionFieldPlan, type ActionRunContext,
} from '../actions/index.js';
import { checkRemoteJoins, runRemoteJoins } from '../remoteSchemas/index.js';
import { ENGINE_PARTS, sourceDb, type EngineContext } from '../appState.js';
import type { ExecutorArgs, MutationFieldExecutor, OperationExecutor } from './executorTypes.js';
import { remoteJoinRequests, sourceJoinStatements, sourceQuery } from './executeRemote.js';

const wakers = new WeakMap<EngineContext, () => void>();

/** What an engine calls after an async action's log row committed (set by startWorkers: local wake + NOTIFY). */
export function setActionWaker(ctx: EngineContext, wake: () => void): void {
  wakers.set(ctx, wake);
}

const runContext = (args: ExecutorArgs): ActionRunContext => ({
  db: args.ctx.db,
  session: args.session,
  variables: args.variables,
  prepare: args.ctx.config.usePreparedStatements !== false,
  onAsyncCreated: () => wakers.get(args.ctx)?.(),
  clientHeaders: args.extras?.clientHeaders,
  setCookie: args.extras?.setCookie,
});

/**
 * One action field's JSON text. When the tables its output reaches have remote relationships in the
 * selection, what the client asked of them is checked before the handler is called, and the
 * remotes' answers are joined into the statement's JSON after it (one request per relationship).
 */
async function runAction(plan: ActionFieldPlan, rc: ActionRunContext, args: ExecutorArgs): Promise<string> {
  const join = plan.remoteJoin;
  if (!join) return runActionField(plan, rc);
  const cache = args.ctx.state.current;
  checkRemoteJoins(join, cache, args.variables, args.session.role);
  const text = await runActionField(plan, rc);
  const joined = await runRemoteJoins(JSON.parse(text), join, {
    cache, session: args.session, variables: args.variables, clientHeaders: args.clientHeaders, requests: remoteJoinRequests,
    sourceQuery: sourceQuery(args.ctx), statements: sourceJoinStatements,
  });
  return JSON.stringify(joined);
}

/** `ext:action` mutation root fields. */
export const actionMutationField: MutationFieldExecutor = (field, args) => runAction((field as { plan: ActionFieldPlan }).plan, runContext(args), args);

/** Query operations with `ext:action` root fields. */
export const actionQueryExecutor: OperationExecutor = async (args) => {
  const out = new Map<string, string>();
  const rc = runContext(args);
  const prepare = rc.prepare;
  let hasIntrospection = false;
  for (const f of args.compiled.fields) {
    switch (f.kind) {
      case 'sql': {
        // A root field of another source (beside the action) runs on that source's pool.
        const on = f.source === undefined ? { db: args.ctx.db, prepare } : sourceDb(args.ctx, f.source);
        out.set(f.alias, (await on.db.queryJsonText(f.text, resolveParams(f.params, args.variables, args.session), { prepare: on.prepare })) ?? 'null');
        break;
      }
      case 'typename':
        out.set(f.alias, JSON.stringify(f.value));
        break;
      case 'introspection':
        hasIntrospection = true;
        break;
      case 'ext:action':
        out.set(f.alias, await runAction(f.plan as ActionFieldPlan, rc, args));
        break;
      default:
        throw new ApiError('not-supported', `root field ${f.alias} cannot be executed in a query`);
    }
  }
  if (hasIntrospection && args.compiled.introspection) {
    const schema = getRoleSchema(args.ctx.state.current, args.session.role, ENGINE_PARTS.schema, args.session.backendOnly).schema;
    const result = await execute({ schema, document: args.compiled.introspection, variableValues: args.variables });
    if (result.errors?.length) throw new ApiError('validation-failed', result.errors[0].message);
    const data = (result.data ?? {}) as Record<string, unknown>;
    for (const f of args.compiled.fields) if (f.kind === 'introspection') out.set(f.alias, JSON.stringify(data[f.alias] ?? null));
  }
  return out;
};
