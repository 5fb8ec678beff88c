/**
 * One GraphQL request, start to finish: role schema → cached compiled plan → statements →
 * `{"data":{...}}` written by string concatenation around the JSON text Postgres built.
 *
 * A single SQL root field is ONE round trip (`queryJsonText`, prepared); several are combined into
 * one statement that builds the whole `data` object (one round trip, one snapshot), or, next to
 * introspection fields, run on one connection in a read-only transaction. Introspection root fields are
 * written as text from the role's schema (graphql/schema/introspectionText.ts; graphql-js answers the
 * unusual). Root fields of other kinds (mutations, actions, remote fields) go to the executors named for
 * their kind in the table of executors.ts; over HTTP, an operation of table mutations on one source is
 * answered as bytes by `tableMutationBody` (executeMutation.ts).
 */
import { tracedSync, tracingOn } from '../tracing/index.js';
import { print } from 'graphql';
import { ApiError, errors, isStackOverflow, type Session } from '../core/index.js';
import { ENGINE_PARTS, sourceDb, sourceReads, type ApiParts, type EngineContext } from '../appState.js';
import type { DbClient, JsonFrame, ReadAfter, ReadDb } from '../execution/index.js';
import { assertQueryAllowed, dataObject, getRoleSchema, introspectionText, LazySchema, responseKeys, type GraphqlRequest, type RoleSchema } from '../graphql/index.js';
import { getCompiledOperation, type CompiledOperation, type CompiledRootField } from '../planner/index.js';
import { resolveParams, type Param } from '../sql/index.js';
import { EXECUTORS } from './executors.js';
import { tableMutationBody } from './executeMutation.js';
import type { QueryFieldsExecutor, RequestExtras } from './executorTypes.js';
import { mutationByGet } from './graphqlOverHttp.js';
import { cacheable, cachedAnswer } from './cachedResponse.js';
import { introspectionAnswer, introspectionResponse } from './introspectionAnswers.js';
import { introspectionBody, introspectionByGraphqlJs, introspectionOnly } from './introspectionBody.js';
import type { ResponseCache } from '../responseCache/index.js';

export type { RequestExtras } from './executorTypes.js';

export interface GraphqlResult {
  /**
   * `{"data":...}` or `{"errors":[...]}` as JSON text; over HTTP a one-statement answer is a Buffer
   * holding the bytes Postgres sent inside the `data` frame (never decoded to a string).
   */
  body: string | Buffer;
  /** The error's own status (used by /v1alpha1/graphql), or 200. */
  status: number;
  /** Extra response headers (a remote schema's `Set-Cookie`). */
  headers?: Record<string, string>;
  error?: ApiError;
  /** The operation's kind when it ran (for metrics). */
  kind?: 'query' | 'mutation' | 'subscription';
}

const COMBINED_FRAME: JsonFrame = { prefix: Buffer.from('{"data":'), suffix: Buffer.from('}') };
const FIELD_SUFFIX = Buffer.from('}}');
/** The one statement (and the frame around its JSON) per compiled operation answered by one statement. */
const oneStatements = new WeakMap<CompiledOperation, { text: string; params: Param[]; frame: JsonFrame } | null>();

/**
 * The single statement that answers `compiled` over HTTP, or null: the combined statement (several
 * SQL root fields), or the statement of a lone SQL root field, framed `{"data":{"<alias>":` … `}}`.
 */
function oneStatement(compiled: CompiledOperation): { text: string; params: Param[]; frame: JsonFrame } | null {
  let one = oneStatements.get(compiled);
  if (one === undefined) {
    const only = compiled.fields.length === 1 ? compiled.fields[0] : undefined;
    if (compiled.combined && !compiled.fields.some((f) => f.kind.startsWith('ext:'))) one = { ...compiled.combined, frame: COMBINED_FRAME };
    else if (only?.kind === 'sql' && !compiled.introspection) {
      const keys = responseKeys([only.alias]);
      one = { text: only.text, params: only.params, frame: { prefix: Buffer.from(`{"data":${keys.before[0]}`), suffix: keys.after === '}' ? FIELD_SUFFIX : Buffer.from(`${keys.after}}`) } };
    } else one = null;
    oneStatements.set(compiled, one);
  }
  return one;
}

/** Per-request restrictions. */
export interface ExecuteOptions {
  /** GET requests (GraphQL over HTTP): a mutation is refused (405) before anything runs. */
  forbidMutations?: boolean;
  /** HTTP request extras (client headers; Set-Cookie values to pass back), when the transport has them. */
  extras?: RequestExtras;
  /** The API the request is for: the GraphQL API (default) or the Relay API. */
  parts?: ApiParts;
  /**
   * With read replicas: where this request's queries may read (a replica that has replayed this
   * commit LSN, or the primary); unset: any usable replica. Ignored without replicas.
   */
  readAfter?: ReadAfter;
  /**
   * The response goes to a client that accepts gzip alone (not inside a batch): a kept introspection answer is
   * then its gzip bytes, with `content-encoding: gzip` in `headers` (introspectionAnswers.ts).
   */
  gzip?: boolean;
}

/** A document that may hold a mutation (a word `mutation`; a false match only makes the mutation root early). */
const MUTATION_WORD = /\bmutation\b/;

/** Parse, validate and plan (cached per document) in a `graphql.compile` span. */
function tracedCompile(args: Parameters<typeof getCompiledOperation>[0]): ReturnType<typeof getCompiledOperation> {
  return tracedSync('graphql.compile', { 'graphql.operation.name': args.request.operationName ?? undefined }, (note) => {
    const r = getCompiledOperation(args);
    note.set('graphql.operation.type', r.compiled.kind);
    return r;
  });
}

/** The response of one request (over WebSockets the body is always a string). */
export async function executeGraphql(ctx: EngineContext, session: Session, request: GraphqlRequest, transport: 'ws', opts?: ExecuteOptions): Promise<GraphqlResult & { body: string }>;
export async function executeGraphql(ctx: EngineContext, session: Session, request: GraphqlRequest, transport?: 'http', opts?: ExecuteOptions): Promise<GraphqlResult>;
export async function executeGraphql(
  ctx: EngineContext, session: Session, request: GraphqlRequest, transport: 'http' | 'ws' = 'http', opts: ExecuteOptions = {},
): Promise<GraphqlResult> {
  const phase = { inDb: false };
  const extras = opts.extras;
  try {
    const cache = ctx.state.current;
    // Read in the same tick as `cache` (a swap sets both at once): the version the answer is computed with.
    const resourceVersion = ctx.state.resourceVersion;
    assertQueryAllowed(cache, ctx.config, session, request.query);
    const parts = opts.parts ?? ENGINE_PARTS;
    const roleSchema = getRoleSchema(cache, session.role, parts.schema, session.backendOnly);
    // A role's first mutation: its mutation root made a slice per event-loop turn before validation reads it.
    if (roleSchema.schema instanceof LazySchema && roleSchema.schema.mutationPending && MUTATION_WORD.test(request.query)) await roleSchema.schema.prepareMutation();
    const args = { cache, roleSchema, request, stringifyNumericTypes: ctx.config.stringifyNumericTypes, limits: ctx.limitDefaults ?? ctx.config, planners: parts.planners };
    const { compiled, variables } = tracingOn() ? tracedCompile(args) : getCompiledOperation(args);
    if (compiled.kind === 'mutation' && opts.forbidMutations) throw mutationByGet();
    if (compiled.kind === 'subscription' && transport === 'http') {
      throw new ApiError('unexpected-payload', 'subscriptions are not supported over HTTP, use websockets instead');
    }
    // Queries read from their source's replicas when it has any (no cost without: one property read);
    // an operation whose root fields are all of another source runs on that source's pool.
    const db: ReadDb = compiled.kind === 'query' ? sourceReads(ctx, compiled.source, opts.readAfter)
      : compiled.source !== undefined ? sourceDb(ctx, compiled.source).db : ctx.db;
    if (compiled.cached && transport === 'http' && ctx.responseCache && resourceVersion !== undefined && cacheable(compiled)) {
      const cacheCtx = ctx as EngineContext & { responseCache: ResponseCache };
      const api = parts === ENGINE_PARTS ? 'graphql' : 'relay';
      return await cachedAnswer(cacheCtx, session, request, api, resourceVersion, compiled.cached, compiled, variables, () => runCompiled(ctx, db, session, roleSchema, compiled, variables, transport, phase, request, extras, opts.readAfter));
    }
    return await runCompiled(ctx, db, session, roleSchema, compiled, variables, transport, phase, request, extras, opts.readAfter, opts.gzip);
  } catch (e) {
    return errorResult(ctx, e, phase.inDb);
  }
}

/** Runs a compiled operation: one statement when it can, else each root field by its kind. */
async function runCompiled(
  ctx: EngineContext, db: ReadDb, session: Session, roleSchema: RoleSchema, compiled: CompiledOperation, variables: Record<string, unknown>,
  transport: 'http' | 'ws', phase: { inDb: boolean }, request: GraphqlRequest, extras: RequestExtras | undefined, readAfter?: ReadAfter, gzip = false,
): Promise<GraphqlResult> {
  if (transport === 'http' && compiled.kind === 'mutation') {
    // Table mutations on one source: the response assembled from the bytes Postgres sent (executeMutation.ts).
    const body = tableMutationBody(ctx, compiled, session, variables);
    if (body !== undefined) return { body: await body, status: 200, kind: 'mutation' };
  }
  const { prepare } = sourceDb(ctx, compiled.source);
  const one = transport === 'http' ? oneStatement(compiled) : null;
  if (one) {
    const params = resolveParams(one.params, variables, session);
    phase.inDb = true;
    return { body: await db.queryJsonFramed(one.text, params, one.frame, { prepare }), status: 200, kind: compiled.kind };
  }
  if (compiled.combined && !compiled.fields.some((f) => f.kind.startsWith('ext:'))) {
    const params = resolveParams(compiled.combined.params, variables, session);
    phase.inDb = true;
    const text = await db.queryJsonText(compiled.combined.text, params, { prepare });
    return { body: `{"data":${text ?? 'null'}}`, status: 200, kind: compiled.kind };
  }
  if (transport === 'http' && introspectionOnly(compiled)) {
    // Introspection alone: the whole body as bytes, kept and written as they are (introspectionBody.ts).
    // A kept answer is gzip bytes: sent as they are to a client that accepts gzip, else inflated (introspectionAnswers.ts).
    const { body, headers } = await introspectionResponse(await introspectionBody(roleSchema.schema, compiled, variables), gzip);
    return headers ? { body, headers, status: 200, kind: compiled.kind } : { body, status: 200, kind: compiled.kind };
  }
  const errors: unknown[] = [];
  const responseHeaders: Record<string, string> = {};
  const values = await runOperation(ctx, db, session, roleSchema, compiled, variables, phase, { clientHeaders: request.clientHeaders, errors, responseHeaders, extras, readAfter });
  const data = `{"data":${dataObject(compiled.fields.map((f) => f.alias), (alias) => values.get(alias) ?? 'null')}`;
  const result: GraphqlResult = { body: errors.length > 0 ? `${data},"errors":${JSON.stringify(errors)}}` : `${data}}`, status: 200, kind: compiled.kind };
  for (const _ in responseHeaders) {
    result.headers = responseHeaders;
    break;
  }
  return result;
}

async function runOperation(
  ctx: EngineContext, db: ReadDb, session: Session, roleSchema: RoleSchema, compiled: CompiledOperation, variables: Record<string, unknown>,
  phase: { inDb: boolean },
  extra: { clientHeaders?: GraphqlRequest['clientHeaders']; errors: unknown[]; responseHeaders?: Record<string, string>; extras?: RequestExtras; readAfter?: ReadAfter } = { errors: [] },
): Promise<Map<string, string>> {
  const extFields = compiled.fields.filter((f) => f.kind.startsWith('ext:'));
  const byKind = new Map<QueryFieldsExecutor, CompiledRootField[]>();
  // A subscription reaches here only as a live query joining other databases (subscriptions/joinedLiveQuery.ts).
  if (compiled.kind !== 'mutation' && extFields.length > 0 && extFields.every((f) => f.kind in EXECUTORS.queryFields)) {
    for (const f of extFields) {
      const run = EXECUTORS.queryFields[f.kind];
      byKind.set(run, [...(byKind.get(run) ?? []), f]);
    }
  } else {
    const custom = extFields.length > 0 && compiled.kind !== 'subscription' ? EXECUTORS.operations[compiled.kind] : undefined;
    if (custom) return custom({ ctx, session, compiled, variables, ...extra });
    if (extFields.length > 0) throw new ApiError('not-supported', `${compiled.kind} operations are not supported`);
  }
  // Root fields of other kinds (remote schemas...) run while the SQL fields run.
  const extRuns = [...byKind].map(([run, fields]) => run(fields, { ctx, session, compiled, variables, ...extra }));
  extRuns.forEach((p) => p.catch(() => undefined));
  const out = new Map<string, string>();
  const sqlFields = compiled.fields.filter((f): f is Extract<CompiledRootField, { kind: 'sql' }> => f.kind === 'sql');
  // Every parameter first: a missing session variable fails before any statement runs.
  const params = sqlFields.map((f) => resolveParams(f.params, variables, session));
  phase.inDb = true;
  if (compiled.multiSource) {
    // Root fields of several sources: each source's fields on its own pool, the sources at once.
    const bySource = new Map<string, number[]>();
    sqlFields.forEach((f, i) => bySource.set(f.source ?? 'default', [...(bySource.get(f.source ?? 'default') ?? []), i]));
    await Promise.all([...bySource].map(([source, indexes]) => {
      const on = sourceDb(ctx, source);
      // default's fields read where the operation reads; another source's query fields on its replicas when it has any
      const where = source === 'default' ? db : compiled.kind === 'query' ? sourceReads(ctx, source, extra.readAfter) : on.db;
      return runSqlFields(where, sqlFields, params, indexes, on.prepare, out);
    }));
  } else {
    const { prepare } = sourceDb(ctx, compiled.source);
    await runSqlFields(db, sqlFields, params, sqlFields.map((_, i) => i), prepare, out);
  }
  phase.inDb = false;
  for (const f of compiled.fields) {
    if (f.kind === 'typename') out.set(f.alias, JSON.stringify(f.value));
  }
  if (compiled.introspection) {
    const document = compiled.introspection;
    const key = `${JSON.stringify(variables)}\u0000${print(document)}`;
    const answer = await introspectionAnswer(roleSchema.schema, key, async () => {
      // Written as text from the schema's types (a lazy schema's types made as the walk reaches them, not
      // kept); graphql-js answers what that walk leaves to it (errors, unusual documents).
      const text = await introspectionText(roleSchema.schema, document, variables);
      return text ?? introspectionByGraphqlJs(roleSchema.schema, document, variables, compiled.fields.filter((f) => f.kind === 'introspection').map((f) => f.alias));
    });
    for (const [alias, text] of answer) out.set(alias, text);
  }
  for (const values of await Promise.all(extRuns)) for (const [k, v] of values) out.set(k, v);
  return out;
}

/** The SQL root fields `indexes` on `db`: one statement alone, several in one read-only transaction (one snapshot). */
async function runSqlFields(
  db: ReadDb, fields: ReadonlyArray<Extract<CompiledRootField, { kind: 'sql' }>>, params: readonly unknown[][], indexes: readonly number[], prepare: boolean, out: Map<string, string>,
): Promise<void> {
  const run = async (c: Pick<DbClient, 'queryJsonText'>, i: number) => {
    const text = await c.queryJsonText(fields[i].text, params[i], { prepare });
    out.set(fields[i].alias, text ?? 'null');
  };
  if (indexes.length === 1) await run(db, indexes[0]);
  else if (indexes.length > 1) {
    await db.transaction({ readOnly: true }, async (c) => {
      for (const i of indexes) await run(c, i);
    });
  }
}

/** `{"errors":[{extensions:{path,code},message}]}`; errors from Postgres also carry `"data":null`. */
export function errorResult(ctx: EngineContext, e: unknown, fromDb = false): GraphqlResult {
  const err = e instanceof ApiError ? e : isStackOverflow(e) ? errors.nestedTooDeeply() : new ApiError('unexpected', 'unexpected error', { status: 500, internal: String(e) });
  if (err.code === 'unexpected' && !(e instanceof ApiError)) ctx.logger.error({ err: e }, 'graphql request failed');
  const body: Record<string, unknown> = fromDb ? { data: null } : {};
  body.errors = [err.toGraphqlError(ctx.config.devMode)];
  return { body: JSON.stringify(body), status: err.status, error: err };
}
