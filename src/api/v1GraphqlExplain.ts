/**
 * POST /v1/graphql/explain (SPEC "Explain API"): admin only. Plans the GraphQL query under the
 * permissions of the role in `user` (`x-svc-role`, default admin) with its session variables,
 * through the same planner + SQL compiler as /v1/graphql, and asks Postgres for the plan of each
 * root field's statement with its parameters bound:
 *
 *   {"query": {"query": "query { user { id } }"}, "user": {"x-svc-role": "user", "x-svc-user-id": "1"}}
 *   → [{"field": "user", "sql": "SELECT …", "plan": ["Aggregate  (cost=…)", …]}]
 *
 * A subscription gives one `{sql, plan}`: the multiplexed statement its live-query poller runs
 * (parameters `$1` cohort ids, `$2` cohort variables), planned for the caller's values.
 * `query` may also be the GraphQL text itself.
 * Beyond the SPEC: `"analyze": true` runs EXPLAIN ANALYZE (real timings) inside a transaction that
 * is always rolled back. `sql` shows the statement with its parameter values inlined as literals,
 * so it can be pasted into psql; the plan is computed with the values bound.
 * With read replicas, each answer also says which `server` it was planned on: the one the query
 * would read from now (a usable replica, or `primary`), given the request's read-your-writes headers.
 */
import { parseJsonExact } from '../lib/index.js';
import { ApiError, inHasuraMode, roleSession, splitSessionHeadersCompat, ADMIN_ROLE, type Session } from '../core/index.js';
import { resolveSession } from '../auth/index.js';
import { ENGINE_PARTS, hasReadReplicas, sourceDb, type EngineContext } from '../appState.js';
import { escapeLiteral, readAfterOf, type Db } from '../execution/index.js';
import { getRoleSchema, type GraphqlRequest } from '../graphql/index.js';
import { getCompiledOperation, type CompiledRootField } from '../planner/index.js';
import { mapParamRefs, resolveParams } from '../sql/index.js';
import { explainSubscription } from '../subscriptions/index.js';
import { jsonResponse, type Handler } from './handlerTypes.js';
import { apiErrorResponse } from './v1alpha1Config.js';

interface ExplainRequest {
  request: GraphqlRequest;
  user: Record<string, string>;
  analyze: boolean;
}

interface FieldPlan {
  field: string;
  sql: string | null;
  plan: string[] | null;
  /** With read replicas: `primary` or the replica's host:port/database. */
  server?: string;
}

/** Thrown inside the transaction to roll it back once the plans are read. */
class RollbackWith {
  constructor(readonly plans: FieldPlan[]) {}
}

export const v1GraphqlExplain: Handler = async (req, ctx) => {
  try {
    const caller = await resolveSession(req.headers, ctx.config, req.body);
    if (!caller.isAdmin) throw new ApiError('access-denied', 'you have to be admin to access this endpoint');
    const { request, user: given, analyze } = decodeExplain(req.body);
    // Under --hasura-compat the session may be written as Hasura's explain API takes it (`x-hasura-role`, …).
    const user = ctx.hasuraCompat ? splitSessionHeadersCompat(given, []).vars : given;
    const session = inHasuraMode(roleSession(user['x-svc-role'] ?? ADMIN_ROLE, user), ctx.hasuraSession);
    const cache = ctx.state.current;
    const { compiled, variables } = getCompiledOperation({
      cache,
      roleSchema: getRoleSchema(cache, session.role, ENGINE_PARTS.schema, session.backendOnly),
      request,
      stringifyNumericTypes: ctx.config.stringifyNumericTypes,
      limits: ctx.limitDefaults ?? ctx.config,
      planners: ENGINE_PARTS.planners,
    });
    if (compiled.kind === 'mutation') throw new ApiError('invalid-params', 'only queries can be explained');
    const server = ctx.replicas?.choose(compiled.kind === 'subscription' ? undefined : readAfterOf(req.headers), false);
    if (compiled.kind === 'subscription') {
      // The multiplexed statement the live-query poller runs (subscriptions/explainSubscription.ts).
      const field = compiled.fields[0];
      if (compiled.fields.length !== 1 || field?.kind !== 'sql') throw new ApiError('validation-failed', 'subscriptions must select one top level field');
      const plan = await explainSubscription(ctx, session, field, variables, analyze, field.source !== undefined ? sourceDb(ctx, field.source).db : server?.db);
      const res = jsonResponse(200, server ? { ...plan, server: server.name } : plan);
      res.log = { role: caller.role, operationName: request.operationName ?? undefined };
      return res;
    }
    const targets = compiled.fields.map((f) => {
      if (f.kind === 'sql' || f.kind === 'typename' || f.kind === 'introspection') return f;
      throw new ApiError('not-supported', `the root field "${f.alias}" is not a database query and cannot be explained`);
    });
    // Each field on its source's pool (read on one of that source's replicas when it has any).
    const after = hasReadReplicas(ctx) ? readAfterOf(req.headers) : undefined;
    const sourceOf = (f: CompiledRootField) => (f.kind === 'sql' ? f.source : undefined) ?? 'default';
    const bySource = new Map<string, CompiledRootField[]>();
    for (const f of targets) bySource.set(sourceOf(f), [...(bySource.get(sourceOf(f)) ?? []), f]);
    const explained = new Map<string, FieldPlan>();
    for (const [source, fields] of bySource) {
      const on = source === 'default' ? server : ctx.sources?.replicas(source)?.choose(after, false);
      const db = on?.db ?? (source === 'default' ? ctx.db : sourceDb(ctx, source).db);
      const got = await explainFields(db, session, fields, variables, analyze);
      fields.forEach((f, i) => explained.set(f.alias, got[i]!));
      if (on) for (const p of got) p.server = on.name;
    }
    const plans = targets.map((f) => explained.get(f.alias)!);
    const res = jsonResponse(200, plans);
    res.log = { role: caller.role, operationName: request.operationName ?? undefined };
    return res;
  } catch (e) {
    return apiErrorResponse(e, ctx.config.devMode);
  }
};

async function explainFields(
  db: Db, session: Session, fields: CompiledRootField[], variables: Record<string, unknown>, analyze: boolean,
): Promise<FieldPlan[]> {
  // Resolve every parameter first: a missing session variable fails before anything runs.
  const jobs = fields.map((f) => (f.kind === 'sql' ? { f, values: resolveParams(f.params, variables, session) } : { f, values: [] }));
  const explain = analyze ? 'EXPLAIN (ANALYZE, BUFFERS) ' : 'EXPLAIN ';
  try {
    await db.transaction({ readOnly: true, session }, async (c) => {
      const out: FieldPlan[] = [];
      for (const { f, values } of jobs) {
        if (f.kind !== 'sql') {
          out.push({ field: f.alias, sql: null, plan: null });
          continue;
        }
        const r = await c.query(explain + f.text, values);
        out.push({ field: f.alias, sql: inlineParams(f.text, values), plan: r.rows.map((row) => String(row['QUERY PLAN'])) });
      }
      throw new RollbackWith(out);
    });
  } catch (e) {
    if (e instanceof RollbackWith) return e.plans;
    throw e;
  }
  throw new ApiError('unexpected', 'explain produced no plan', { status: 500 });
}

/** `{query: string | {query, operationName?, variables?}, user?: {…}, analyze?: boolean}`. */
function decodeExplain(body: Buffer): ExplainRequest {
  let doc: unknown;
  try {
    doc = parseJsonExact(body.toString('utf8'));
  } catch {
    throw new ApiError('invalid-json', 'invalid json');
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new ApiError('parse-failed', 'expected an object with "query" and optionally "user"');
  const o = doc as Record<string, unknown>;
  let request: GraphqlRequest;
  if (typeof o.query === 'string') {
    request = { query: o.query, operationName: null, variables: null };
  } else if (o.query !== null && typeof o.query === 'object' && !Array.isArray(o.query)) {
    const q = o.query as Record<string, unknown>;
    if (typeof q.query !== 'string') throw new ApiError('parse-failed', 'key "query" not found', { path: '$.query' });
    if (q.operationName != null && typeof q.operationName !== 'string') throw new ApiError('parse-failed', 'expected Text for operationName', { path: '$.query.operationName' });
    if (q.variables != null && (typeof q.variables !== 'object' || Array.isArray(q.variables))) throw new ApiError('parse-failed', 'expected Object for variables', { path: '$.query.variables' });
    request = { query: q.query, operationName: (q.operationName as string | null | undefined) ?? null, variables: (q.variables as Record<string, unknown> | null | undefined) ?? null };
  } else {
    throw new ApiError('parse-failed', 'key "query" not found: expected the GraphQL query text or {query, operationName, variables}', { path: '$' });
  }
  const user: Record<string, string> = {};
  if (o.user !== undefined && o.user !== null) {
    if (typeof o.user !== 'object' || Array.isArray(o.user)) throw new ApiError('parse-failed', 'expected an object of session variables', { path: '$.user' });
    for (const [k, v] of Object.entries(o.user as Record<string, unknown>)) {
      if (typeof v !== 'string') throw new ApiError('parse-failed', `session variable ${k} must be a string`, { path: `$.user['${k}']` });
      user[k.toLowerCase()] = v;
    }
  }
  if (o.analyze !== undefined && typeof o.analyze !== 'boolean') throw new ApiError('parse-failed', 'expected a boolean', { path: '$.analyze' });
  return { request, user, analyze: o.analyze === true };
}

/** The statement with `$n` replaced by SQL literals (quoted identifiers and strings are skipped). */
export function inlineParams(text: string, values: readonly unknown[]): string {
  return mapParamRefs(text, (i) => (i < values.length ? literal(values[i]) : `$${i + 1}`));
}

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return `'${String(v)}'`;
  if (typeof v === 'boolean') return v ? "'true'" : "'false'";
  if (v instanceof Date) return escapeLiteral(v.toISOString());
  if (Array.isArray(v)) return escapeLiteral(pgArray(v));
  if (typeof v === 'object') return escapeLiteral(JSON.stringify(v));
  return escapeLiteral(String(v));
}

function pgArray(items: readonly unknown[]): string {
  const el = (x: unknown): string => {
    if (x === null || x === undefined) return 'NULL';
    if (Array.isArray(x)) return pgArray(x);
    const s = typeof x === 'object' ? JSON.stringify(x) : String(x);
    return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  };
  return `{${items.map(el).join(',')}}`;
}
