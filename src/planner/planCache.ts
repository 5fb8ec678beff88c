/**
 * The plan cache: (role, operationName, query text) → the prepared operation, and under it one
 * compiled plan per variable signature (see signature.ts). A plan holds, per root field, the SQL
 * text and parameter list from `compile()`, so a repeated request only validates its variable
 * values, runs the runtime checks and resolves parameters. Entries hang off the schema cache
 * (`WeakMap<SchemaCache, Lru>`): installing new metadata drops every plan at once.
 */
import { Kind, type DocumentNode, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { Lru } from '../lib/index.js';
import { compile, compileAggregate, compileSelect, sql, type Param, type SqlFragment } from '../sql/index.js';
import {
  checkVariables, quickVariables, limitsForRole, normalizeOperation, parseQuery, prepareOperation, responseKeys,
  type CachedSpec, type GraphqlRequest, type LimitDefaults, type NField, type PreparedOperation, type RoleSchema,
} from '../graphql/index.js';
import type { SchemaCache } from '../metadata/index.js';
import type { RuntimeCheck } from './context.js';
import { planOperation, type OperationPlan, type RootFieldPlan, type RootFieldPlanners } from './planOperation.js';
import { checkLimitValue, checkOffsetValue } from './select.js';
import { signatureFromShapes, variableSignature } from './signature.js';
import { liveKeyOf, type LiveKey } from './liveKey.js';

export type CompiledRootField =
  /** `liveKey`: a subscription's row key, when it has one (liveKey.ts). */
  /** `source`: the Postgres source it runs on (absent: `default`). */
  | { alias: string; kind: 'sql'; text: string; params: Param[]; liveKey?: LiveKey; source?: string }
  | { alias: string; kind: 'typename'; value: string }
  | { alias: string; kind: 'introspection' }
  | { alias: string; kind: `ext:${string}`; plan: unknown; source?: string };

export interface CompiledOperation {
  kind: OperationPlan['kind'];
  fields: CompiledRootField[];
  /**
   * When several root fields are SQL (and none needs graphql-js): ONE statement whose single
   * column is the whole `data` object's JSON text, every root field a scalar subquery of it, so
   * the request is one round trip over one snapshot.
   */
  combined?: { text: string; params: Param[] };
  /**
   * The one Postgres source every SQL and `ext:` root field runs on, when it is not `default` (then the
   * operation runs on that source's pool as a whole); absent: `default`, or root fields of several
   * sources (`combined` is then absent too: each field runs on its own source).
   */
  source?: string;
  /** Root fields of more than one source. */
  multiSource?: boolean;
  checks: RuntimeCheck[];
  /** A document with only the introspection root fields, for graphql-js `execute`. */
  introspection?: DocumentNode;
  /** The query's `@cached` (absent without one: the request path then never looks at the cache). */
  cached?: CachedSpec;
}

interface DocEntry {
  prepared: PreparedOperation;
  baked: Set<string>;
  plans: Lru<string, CompiledOperation>;
}

const DOCS_PER_CACHE = 2000;
const PLANS_PER_DOC = 64;
/** Query texts longer than this are validated every time rather than kept (2000 × 50 MB would not fit in memory). */
const MAX_CACHED_QUERY_CHARS = 64 * 1024;
/** Per set of planners (the GraphQL API, the Relay API), per schema cache: the same text means other fields in each. */
const caches = new WeakMap<RootFieldPlanners, WeakMap<SchemaCache, Lru<string, DocEntry>>>();

export interface PlanRequest {
  cache: SchemaCache;
  roleSchema: RoleSchema;
  request: GraphqlRequest;
  stringifyNumericTypes: boolean;
  /** The server's default API limits (flags); metadata `api_limits` override them per role. */
  limits?: LimitDefaults;
  /** The planners of `ext:` root fields (appState.ts: `ENGINE_PARTS.planners`). */
  planners: RootFieldPlanners;
}

/** The compiled operation for this request, and the variable values to bind (defaults filled in). */
export function getCompiledOperation(req: PlanRequest): { compiled: CompiledOperation; variables: Record<string, unknown> } {
  let byCache = caches.get(req.planners);
  if (!byCache) caches.set(req.planners, (byCache = new WeakMap()));
  let docs = byCache.get(req.cache);
  if (!docs) byCache.set(req.cache, (docs = new Lru(DOCS_PER_CACHE)));
  const { request, roleSchema } = req;
  const key = `${roleSchema.key}\u0000${request.operationName ?? ''}\u0000${request.query}`;
  let entry = docs.get(key);
  if (!entry) {
    const limits = limitsForRole(req.cache.metadata.api_limits, req.limits ?? {}, roleSchema.role);
    entry = { prepared: prepareOperation(roleSchema, parseQuery(request.query), request.operationName, limits), baked: new Set(), plans: new Lru(PLANS_PER_DOC) };
    if (request.query.length <= MAX_CACHED_QUERY_CHARS) docs.set(key, entry);
  }
  // Usually one walk over the variables proves them valid and gives the plan key; the full
  // coercion (annotated values for the planner, exact errors) runs only on a miss or a doubt.
  const { declared } = entry.prepared;
  const quick = quickVariables(declared, entry.prepared.operation.variableDefinitions ?? [], request.variables);
  let coerced = quick ? undefined : checkVariables(entry.prepared, request.variables);
  const values = quick ? quick.values : coerced!.values;
  let compiled = entry.plans.get(quick ? signatureFromShapes(declared, quick.shapes, values, entry.baked) : variableSignature(declared, values, entry.baked));
  if (!compiled) {
    coerced ??= checkVariables(entry.prepared, request.variables);
    const op = normalizeOperation(roleSchema, entry.prepared, coerced);
    const plan = planOperation(op, { cache: req.cache, role: roleSchema.role, stringifyNumericTypes: req.stringifyNumericTypes, planners: req.planners, backendOnly: roleSchema.backendOnly });
    plan.staticVars.forEach((v) => entry!.baked.add(v));
    compiled = compileOperation(plan, op.operation, entry.prepared.fragments);
    if (entry.prepared.cached) compiled.cached = entry.prepared.cached;
    entry.plans.set(variableSignature(declared, coerced.values, entry.baked), compiled);
  }
  runChecks(compiled.checks, values);
  return { compiled, variables: values };
}

/** Root field plans → SQL text + parameter lists (one statement per root field). */
export function compileOperation(
  plan: OperationPlan, operation: OperationDefinitionNode, fragments: DocumentNode['definitions'],
): CompiledOperation {
  const introspectionNodes: FieldNode[] = [];
  const parts: Array<{ alias: string; frag: SqlFragment } | { alias: string; constant: string }> = [];
  const sqlField = (alias: string, frag: SqlFragment, f?: RootFieldPlan): CompiledRootField => {
    parts.push({ alias, frag });
    const compiled = compile(frag);
    const liveKey = f && plan.kind === 'subscription' ? liveKeyOf(f, compiled.params) : undefined;
    const out: CompiledRootField = liveKey ? { alias, kind: 'sql', ...compiled, liveKey } : { alias, kind: 'sql', ...compiled };
    if (f?.source !== undefined) out.source = f.source;
    return out;
  };
  const fields = plan.fields.map((f: RootFieldPlan): CompiledRootField => {
    switch (f.kind) {
      case 'select':
        return sqlField(f.alias, compileSelect(f.ir), f);
      case 'select_by_pk':
        return sqlField(f.alias, compileSelect(f.ir, { single: true }), f);
      case 'aggregate':
        return sqlField(f.alias, compileAggregate(f.ir), f);
      case 'sql_fragment':
        return sqlField(f.alias, f.frag);
      case 'typename':
        parts.push({ alias: f.alias, constant: JSON.stringify(f.value) });
        return { alias: f.alias, kind: 'typename', value: f.value };
      case 'introspection':
        introspectionNodes.push(...(f.field as NField).nodes);
        return { alias: f.alias, kind: 'introspection' };
      default:
        return f.source === undefined ? { alias: f.alias, kind: f.kind, plan: f.plan } : { alias: f.alias, kind: f.kind, plan: f.plan, source: f.source };
    }
  });
  const compiled: CompiledOperation = { kind: plan.kind, fields, checks: plan.checks };
  const sources = new Set(plan.fields.filter((f) => f.kind !== 'typename' && f.kind !== 'introspection').map((f) => f.source ?? 'default'));
  if (sources.size > 1) compiled.multiSource = true;
  else if (sources.size === 1 && !sources.has('default')) compiled.source = [...sources][0];
  const sqlCount = fields.filter((f) => f.kind === 'sql').length;
  if (sqlCount > 1 && sources.size <= 1 && fields.every((f) => f.kind === 'sql' || f.kind === 'typename')) compiled.combined = compile(combinedStatement(parts));
  if (introspectionNodes.length > 0) {
    compiled.introspection = {
      kind: Kind.DOCUMENT,
      definitions: [
        {
          kind: Kind.OPERATION_DEFINITION,
          operation: 'query' as OperationDefinitionNode['operation'],
          variableDefinitions: operation.variableDefinitions,
          selectionSet: { kind: Kind.SELECTION_SET, selections: introspectionNodes },
        } as OperationDefinitionNode,
        ...fragments,
      ],
    };
  }
  return compiled;
}

/**
 * `SELECT '{"a":' || coalesce((<a>)::text, 'null') || ',"b":' || ... || '}'`: the data object in one statement
 * (the fields of a namespace nested under its key: graphql/request/responseKeys.ts).
 */
function combinedStatement(parts: Array<{ alias: string; frag: SqlFragment } | { alias: string; constant: string }>): SqlFragment {
  const pieces: SqlFragment[] = [];
  const { before, after } = responseKeys(parts.map((p) => p.alias));
  parts.forEach((p, i) => {
    const key = before[i]!;
    if ('frag' in p) pieces.push(sql.literal(key), sql`coalesce((${p.frag})::text, 'null')`);
    else pieces.push(sql.literal(key + p.constant));
  });
  pieces.push(sql.literal(after));
  return sql`SELECT ${sql.join(pieces, ' || ')} AS "root"`;
}

/** Re-checks variable values that a cached plan binds as LIMIT/OFFSET parameters. */
function runChecks(checks: readonly RuntimeCheck[], variables: Record<string, unknown>): void {
  for (const c of checks) {
    let v: unknown = variables[c.variable];
    for (const k of c.path) v = v == null ? undefined : (v as Record<string | number, unknown>)[k];
    if (v === null || v === undefined) continue;
    if (c.kind === 'limit') checkLimitValue(v, c.errorPath);
    else checkOffsetValue(v, c.errorPath);
  }
}
