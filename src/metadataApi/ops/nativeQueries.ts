/**
 * Hasura v2's logical models and native queries (`pg_track_logical_model`, `pg_untrack_logical_model`,
 * `pg_create_logical_model_select_permission`, `pg_drop_logical_model_select_permission`,
 * `pg_track_native_query`, `pg_untrack_native_query`, `pg_get_logical_model`, `pg_get_native_query`;
 * `/v1/metadata` drops the `pg_` and the source).
 * A native query's SQL is checked by Postgres when it is tracked: `EXPLAIN` of the code with its
 * arguments as typed parameters, selecting every field of the logical model cast to its type.
 */
import { ApiError } from '../../core/index.js';
import {
  asObject,
  asString,
  BuildError,
  buildLogicalModel,
  decodeLogicalModel,
  decodeNativeQuery,
  decodePermissionDef,
  fieldUdt,
  modelReference,
  optional,
  removeObject,
  required,
  resolveNativeQuery,
} from '../../metadata/index.js';
import type { LogicalModelMetadata, NativeQueryMetadata } from '../../metadata/index.js';
import { compile, nativeQuerySql, sql } from '../../sql/index.js';
import { op, SUCCESS, type OpContext } from '../types.js';
import { dependencyError } from '../dependents.js';

const q = (s: string): string => JSON.stringify(s);

/** Postgres' own message of a failed statement (the ApiError of the db layer keeps it in `internal`). */
function postgresMessage(e: unknown): string {
  const internal = (e as { internal?: { error?: { message?: unknown } } }).internal;
  if (typeof internal?.error?.message === 'string') return internal.error.message;
  return e instanceof Error ? e.message : String(e);
}

function withoutSource(args: unknown, path: string): Record<string, unknown> {
  const o = asObject(args, path);
  const source = optional(o, 'source', path, asString);
  if (source !== undefined && source !== 'default') throw new ApiError('not-exists', `source with name ${q(source)} does not exist`, { path });
  const { source: _s, ...rest } = o;
  return rest;
}

function findModel(models: LogicalModelMetadata[] | undefined, name: string, source: string): LogicalModelMetadata {
  const lm = (models ?? []).find((m) => m.name === name);
  if (!lm) throw new ApiError('not-found', `Logical model ${q(name)} not found in source ${q(source)}.`, { path: '$.args.name' });
  return lm;
}

/** Postgres' verdict on the code: EXPLAIN (planned, never run) with null arguments, inside a savepoint. */
async function checkInPostgres(ctx: OpContext, nq: NativeQueryMetadata, model: LogicalModelMetadata): Promise<void> {
  let info;
  try {
    info = resolveNativeQuery(nq, new Map([[model.name, buildLogicalModel(model)]]));
  } catch (e) {
    if (e instanceof BuildError) throw new ApiError('validation-failed', e.message, { path: '$.args' });
    throw e;
  }
  const types = new Map(info.arguments.map((a) => [a.name, a.pgType]));
  const from = nativeQuerySql({ code: info.code.map((p) => ('text' in p ? p : { arg: { source: { kind: 'value', value: null }, pgType: types.get(p.arg)! } })) });
  const alias = sql.ident('svc_native_query');
  const columns = model.fields.filter((f) => !modelReference(f.type)).map((f) => sql`${alias}.${sql.ident(f.name)}::${sql.type(fieldUdt(f.type))}`);
  const stmt = compile(sql`EXPLAIN SELECT ${sql.join(columns)} FROM ${from} AS ${alias}`);
  await ctx.client.query('SAVEPOINT svc_native_query');
  try {
    await ctx.client.query(stmt.text, stmt.params.map(() => null));
    await ctx.client.query('RELEASE SAVEPOINT svc_native_query');
  } catch (e) {
    await ctx.client.query('ROLLBACK TO SAVEPOINT svc_native_query');
    throw new ApiError('validation-failed', `Failed to validate query: ${postgresMessage(e)}`, { path: '$.args', internal: { statement: stmt.text } });
  }
}

export const track_logical_model = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeLogicalModel(withoutSource(args, path), path),
  async run(ctx, lm) {
    const md = await ctx.work.draft();
    if ((md.logical_models ?? []).some((m) => m.name === lm.name)) {
      throw new ApiError('already-exists', `Logical model ${q(lm.name)} already exists.`, { path: '$.args' });
    }
    // Field types must be Postgres types.
    const scalars = lm.fields.filter((f) => !modelReference(f.type));
    const probe = compile(sql`EXPLAIN SELECT ${sql.join(scalars.map((f) => sql`NULL::${sql.type(fieldUdt(f.type))}`))}`);
    await ctx.client.query('SAVEPOINT svc_logical_model');
    try {
      await ctx.client.query(probe.text);
      await ctx.client.query('RELEASE SAVEPOINT svc_logical_model');
    } catch (e) {
      await ctx.client.query('ROLLBACK TO SAVEPOINT svc_logical_model');
      throw new ApiError('validation-failed', `Failed to validate logical model ${q(lm.name)}: ${postgresMessage(e)}`, { path: '$.args.fields' });
    }
    md.logical_models = [...(md.logical_models ?? []), lm];
    await ctx.work.change(md, { kind: 'logical_model', name: lm.name });
    for (const p of lm.select_permissions ?? []) {
      // A permission that does not fit its model is refused with the model.
      const built = await ctx.work.result();
      const bad = built.inconsistent.find((i) => i.id.kind === 'logical_model_permission' && i.id.name === lm.name && i.id.role === p.role);
      if (bad) throw new ApiError('constraint-violation', bad.object.reason, { path: '$.args.select_permissions' });
    }
    return SUCCESS;
  },
});

export const untrack_logical_model = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => ({ name: required(withoutSource(args, path), 'name', path, asString) }),
  async run(ctx, { name }) {
    const md = await ctx.work.draft();
    findModel(md.logical_models, name, ctx.source);
    const users = (md.native_queries ?? []).filter((n) => n.returns === name);
    if (users.length > 0) throw dependencyError(users.map((n) => ({ kind: 'native_query', name: n.root_field_name })));
    const referrers = (md.logical_models ?? []).filter((m) => m.name !== name && m.fields.some((f) => modelReference(f.type)?.model === name));
    if (referrers.length > 0) throw dependencyError(referrers.map((m) => ({ kind: 'logical_model', name: m.name })));
    removeObject(md, { kind: 'logical_model', name });
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const create_logical_model_select_permission = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const o = withoutSource(args, path);
    const name = required(o, 'name', path, asString);
    const def = decodePermissionDef('select', o, path);
    const perm = def.permission as { columns: string[] | '*'; filter: Record<string, unknown> };
    return { name, role: def.role, comment: def.comment, permission: { columns: perm.columns, filter: perm.filter } };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const lm = findModel(md.logical_models, args.name, ctx.source);
    if ((lm.select_permissions ?? []).some((p) => p.role === args.role)) {
      throw new ApiError('already-exists', `Select permission already defined on logical model ${q(args.name)} for role ${q(args.role)}`, { path: '$.args' });
    }
    const entry: NonNullable<LogicalModelMetadata['select_permissions']>[number] = { role: args.role, permission: args.permission };
    if (args.comment) entry.comment = args.comment;
    lm.select_permissions = [...(lm.select_permissions ?? []), entry];
    await ctx.work.change(md, { kind: 'logical_model_permission', name: args.name, role: args.role });
    return SUCCESS;
  },
});

export const drop_logical_model_select_permission = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const o = withoutSource(args, path);
    return { name: required(o, 'name', path, asString), role: required(o, 'role', path, asString) };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const lm = findModel(md.logical_models, args.name, ctx.source);
    if (!(lm.select_permissions ?? []).some((p) => p.role === args.role)) {
      throw new ApiError('not-found', `Select permission not found on logical model ${q(args.name)} for role ${q(args.role)}`, { path: '$.args' });
    }
    removeObject(md, { kind: 'logical_model_permission', name: args.name, role: args.role });
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const track_native_query = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeNativeQuery(withoutSource(args, path), path),
  async run(ctx, nq) {
    const md = await ctx.work.draft();
    if ((md.native_queries ?? []).some((n) => n.root_field_name === nq.root_field_name)) {
      throw new ApiError('already-tracked', `Native query ${q(nq.root_field_name)} is already tracked.`, { path: '$.args' });
    }
    const model = (md.logical_models ?? []).find((m) => m.name === nq.returns);
    if (!model) throw new ApiError('not-found', `Logical model ${q(nq.returns)} not found in source ${q(ctx.source)}.`, { path: '$.args.returns' });
    await checkInPostgres(ctx, nq, model);
    md.native_queries = [...(md.native_queries ?? []), nq];
    await ctx.work.change(md, { kind: 'native_query', name: nq.root_field_name });
    return SUCCESS;
  },
});

export const untrack_native_query = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => ({ name: required(withoutSource(args, path), 'root_field_name', path, asString) }),
  async run(ctx, { name }) {
    const md = await ctx.work.draft();
    if (!(md.native_queries ?? []).some((n) => n.root_field_name === name)) {
      throw new ApiError('not-found', `Native query ${q(name)} not found in source ${q(ctx.source)}.`, { path: '$.args' });
    }
    const referrers = (md.native_queries ?? []).filter((n) => n.root_field_name !== name
      && [...(n.object_relationships ?? []), ...(n.array_relationships ?? [])].some((r) => r.using.remote_native_query === name));
    if (referrers.length > 0) throw dependencyError(referrers.map((n) => ({ kind: 'native_query', name: n.root_field_name })));
    removeObject(md, { kind: 'native_query', name });
    await ctx.work.change(md);
    return SUCCESS;
  },
});

/** `{source}` of the two read operations: the default source only. */
function decodeSourceOnly(args: unknown, path: string): Record<string, never> {
  withoutSource(args ?? {}, path);
  return {};
}

/** Hasura v2's `pg_get_logical_model`: the source's logical models as the export writes them. */
export const get_logical_model = op({
  adminOnly: true,
  mutates: false,
  decode: decodeSourceOnly,
  async run(ctx) {
    return structuredClone((await ctx.work.metadata()).logical_models ?? []);
  },
});

/** Hasura v2's `pg_get_native_query`: the source's native queries as the export writes them. */
export const get_native_query = op({
  adminOnly: true,
  mutates: false,
  decode: decodeSourceOnly,
  async run(ctx) {
    return structuredClone((await ctx.work.metadata()).native_queries ?? []);
  },
});
