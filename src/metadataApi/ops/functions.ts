/**
 * Function operations: `track_function` (v1: the function name; v2: `{function, configuration}`),
 * `untrack_function`, Hasura v2's function permissions (`create_function_permission`,
 * `drop_function_permission`: `{function, role}`), and computed fields: `add_computed_field`,
 * `drop_computed_field`.
 */
import { ApiError, parseQualifiedName, pathKey, qualifiedKey, sameName } from '../../core/index.js';
import type { QualifiedFunction } from '../../core/index.js';
import {
  asObject,
  asString,
  decodeComputedFieldDefinition,
  decodeFunctionMetadata,
  findTable,
  isObject,
  optional,
  removeObject,
  required,
} from '../../metadata/index.js';
import type { FunctionMetadata, Metadata } from '../../metadata/index.js';
import { resolveFunctionForTracking } from './functionChecks.js';
import { op, SUCCESS } from '../types.js';
import { dependentsOf } from '../dependents.js';
import { decodeWithTable, dropDependents, optionalBool, quote, quoteTable, tableEntry } from './common.js';

function decodeTrackFunction(args: unknown, path: string): FunctionMetadata {
  // v1 takes the name ({schema, name} or a string); the v2 shape is accepted in both versions.
  if (!isObject(args) || !('function' in args)) return { function: parseQualifiedName(args, path) };
  const fm = decodeFunctionMetadata(args, path);
  // The pre-1.3 spelling `config: {session_variable_argument}` is still accepted.
  if (!fm.configuration && isObject(args.config)) {
    const legacy = optional(args.config, 'session_variable_argument', pathKey(path, 'config'), asString);
    if (legacy !== undefined) fm.configuration = { session_argument: legacy };
  }
  return fm;
}

export const track_function = op({
  adminOnly: true,
  mutates: true,
  decode: decodeTrackFunction,
  async run(ctx, args) {
    const md = await ctx.work.draft();
    if ((md.functions ?? []).some((f) => sameName(f.function, args.function))) {
      throw new ApiError('already-tracked', `function already tracked : ${quoteTable(args.function)}`, { path: '$.args' });
    }
    // Hasura's trackFunctionP1: a tracked table of the same qualified name blocks the function.
    if (findTable(md, args.function)) {
      throw new ApiError('not-supported', `table with name ${quoteTable(args.function)} already exists`, { path: '$.args' });
    }
    await resolveFunctionForTracking(ctx, args);
    md.functions = [...(md.functions ?? []), args];
    await ctx.work.change(md, { kind: 'function', function: args.function });
    return SUCCESS;
  },
});

function decodeFunctionName(args: unknown, path: string): QualifiedFunction {
  if (isObject(args) && 'function' in args) return required(args, 'function', path, parseQualifiedName);
  return parseQualifiedName(args, path);
}

export const untrack_function = op({
  adminOnly: true,
  mutates: true,
  decode: decodeFunctionName,
  async run(ctx, fn) {
    const md = await ctx.work.draft();
    if (!(md.functions ?? []).some((f) => sameName(f.function, fn))) {
      throw new ApiError('not-exists', `function not found in cache ${quoteTable(fn)}`, { path: '$.args' });
    }
    removeObject(md, { kind: 'function', function: fn });
    await ctx.work.change(md);
    return SUCCESS;
  },
});

function decodeFunctionPermissionArgs(args: unknown, path: string): { function: QualifiedFunction; role: string } {
  const o = asObject(args, path);
  return { function: required(o, 'function', path, parseQualifiedName), role: required(o, 'role', path, asString) };
}

/** The tracked function's metadata entry, or Hasura's not-exists. */
function trackedFunction(md: Metadata, fn: QualifiedFunction): FunctionMetadata {
  const entry = (md.functions ?? []).find((f) => sameName(f.function, fn));
  if (!entry) throw new ApiError('not-exists', `function not found in cache ${quoteTable(fn)}`, { path: '$.args' });
  return entry;
}

/**
 * Hasura v2's `pg_create_function_permission`: lets `role` call the function. The role must already
 * be able to select the table the function returns (its own select permission, or its inherited
 * role's combined one).
 */
export const create_function_permission = op({
  adminOnly: true,
  mutates: true,
  decode: decodeFunctionPermissionArgs,
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const entry = trackedFunction(md, args.function);
    if ((entry.permissions ?? []).some((p) => p.role === args.role)) {
      throw new ApiError('already-exists', `permission of role ${quote(args.role)} already exists for function ${quoteTable(args.function)} in source: ${quote(ctx.source)}`, { path: '$.args' });
    }
    const cache = await ctx.work.cache();
    const info = cache.functions.get(qualifiedKey(args.function));
    const table = info ? cache.tables.get(qualifiedKey(info.returnTable)) : undefined;
    if (!info || !table) {
      const returns = info ? quoteTable(info.returnTable) : 'of the function';
      throw new ApiError('not-exists', `function's return table ${returns} not found in the cache`, { path: '$.args' });
    }
    if (!table.permissions.get(args.role)?.select) {
      throw new ApiError('not-supported', `function permission can only be added when the function's return table ${quoteTable(info.returnTable)} has select permission configured for role: ${quote(args.role)}`, { path: '$.args' });
    }
    entry.permissions = [...(entry.permissions ?? []), { role: args.role }];
    await ctx.work.change(md, { kind: 'function', function: args.function });
    return SUCCESS;
  },
});

/** Hasura v2's `pg_drop_function_permission`. */
export const drop_function_permission = op({
  adminOnly: true,
  mutates: true,
  decode: decodeFunctionPermissionArgs,
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const entry = (md.functions ?? []).find((f) => sameName(f.function, args.function));
    if (!entry || !(entry.permissions ?? []).some((p) => p.role === args.role)) {
      throw new ApiError('not-exists', `permission of role ${quote(args.role)} does not exist for function ${quoteTable(args.function)} in source: ${quote(ctx.source)}`, { path: '$.args' });
    }
    entry.permissions = entry.permissions!.filter((p) => p.role !== args.role);
    if (entry.permissions.length === 0) delete entry.permissions;
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const add_computed_field = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const { o, table } = decodeWithTable(args, path);
    return {
      table,
      name: required(o, 'name', path, asString),
      definition: required(o, 'definition', path, decodeComputedFieldDefinition),
      comment: optional(o, 'comment', path, asString) ?? null,
    };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const entry = tableEntry(md, args.table);
    if ((entry.computed_fields ?? []).some((c) => c.name === args.name)) {
      throw new ApiError('already-exists', `computed field ${quote(args.name)} already exists`, { path: '$.args' });
    }
    entry.computed_fields = [...(entry.computed_fields ?? []), { name: args.name, definition: args.definition, comment: args.comment }];
    await ctx.work.change(md, { kind: 'computed_field', table: args.table, name: args.name });
    return SUCCESS;
  },
});

export const drop_computed_field = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const { o, table } = decodeWithTable(args, path);
    return { table, name: required(o, 'name', path, asString), cascade: optionalBool(o, 'cascade', path) };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const entry = md.tables.find((t) => sameName(t.table, args.table));
    if (!entry) throw new ApiError('not-exists', `table ${quoteTable(args.table)} does not exist in source: ${ctx.source}`, { path: '$.args.table' });
    if (!(entry.computed_fields ?? []).some((c) => c.name === args.name)) {
      throw new ApiError('not-exists', `computed field ${quote(args.name)} does not exist`, { path: '$.args.name' });
    }
    const key = `${qualifiedKey(args.table)}:${args.name}`;
    const dependents = dependentsOf(await ctx.work.result(), { table: args.table }, (ref) => ref.kind === 'computed_field' && `${qualifiedKey(ref.table)}:${ref.name}` === key);
    dropDependents(md, dependents, args.cascade);
    removeObject(md, { kind: 'computed_field', table: args.table, name: args.name });
    await ctx.work.change(md);
    return SUCCESS;
  },
});

