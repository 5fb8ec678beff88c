/**
 * Table operations: `track_table` (v1: `{table, is_enum}` or the bare/flat table name; v2: with
 * `configuration`), `untrack_table` (with `cascade`), `set_table_is_enum`,
 * `set_table_custom_fields` (v2).
 */
import { ApiError, parseQualifiedName, qualifiedKey } from '../../core/index.js';
import type { QualifiedTable } from '../../core/index.js';
import {
  asBool,
  decodeCustomColumnNames,
  decodeCustomRootFields,
  decodeTableConfiguration,
  findTable,
  isObject,
  optional,
  removeObject,
  required,
} from '../../metadata/index.js';
import type { TableConfiguration } from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';
import { dependentsOf, onTable, partOf } from '../dependents.js';
import { decodeWithTable, dropDependents, optionalBool, quoteTable, tableEntry } from './common.js';

interface TrackTableArgs {
  table: QualifiedTable;
  isEnum: boolean;
  configuration?: TableConfiguration;
}

function decodeTrackTable(args: unknown, path: string, version: number): TrackTableArgs {
  let out: TrackTableArgs;
  if (isObject(args) && 'table' in args) {
    out = { table: required(args, 'table', path, parseQualifiedName), isEnum: optional(args, 'is_enum', path, asBool) ?? false };
  } else {
    out = { table: parseQualifiedName(args, path), isEnum: false };
  }
  if (version === 2 && isObject(args)) {
    const configuration = optional(args, 'configuration', path, decodeTableConfiguration);
    if (configuration) out.configuration = configuration;
  }
  return out;
}

export const track_table = op({
  adminOnly: true,
  mutates: true,
  decode: decodeTrackTable,
  async run(ctx, args) {
    const md = await ctx.work.draft();
    if (findTable(md, args.table)) {
      throw new ApiError('already-tracked', `view/table already tracked: ${quoteTable(args.table)}`, { path: '$.args' });
    }
    const snap = await ctx.work.snapshot();
    if (!snap.tables.has(qualifiedKey(args.table))) {
      const where = ctx.source === 'default' ? 'the database' : 'source';
      throw new ApiError('not-exists', `no such table/view exists in ${where}: ${quoteTable(args.table)}`, { path: '$.args' });
    }
    md.tables.push({
      table: { ...args.table },
      is_enum: args.isEnum,
      configuration: args.configuration ?? { custom_root_fields: {}, custom_column_names: {} },
    });
    await ctx.work.change(md, { kind: 'table', table: args.table });
    return SUCCESS;
  },
});

export const untrack_table = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const { o, table } = decodeWithTable(args, path);
    return { table, cascade: optionalBool(o, 'cascade', path) };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    if (!findTable(md, args.table)) {
      throw new ApiError('already-untracked', `view/table already untracked: ${quoteTable(args.table)}`, { path: '$.args' });
    }
    dropDependents(md, dependentsOf(await ctx.work.result(), { table: args.table }, onTable(args.table), partOf(args.table)), args.cascade);
    removeObject(md, { kind: 'table', table: args.table });
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const set_table_is_enum = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const { o, table } = decodeWithTable(args, path);
    return { table, isEnum: required(o, 'is_enum', path, asBool) };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    tableEntry(md, args.table).is_enum = args.isEnum;
    try {
      await ctx.work.change(md, { kind: 'table', table: args.table });
    } catch (e) {
      // Hasura reports the enum validation without the inconsistent-object details.
      if (e instanceof ApiError && e.code === 'constraint-violation') throw new ApiError(e.code, e.message, { path: e.path });
      throw e;
    }
    return SUCCESS;
  },
});

export const set_table_custom_fields = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const { o, table } = decodeWithTable(args, path);
    return {
      table,
      customRootFields: optional(o, 'custom_root_fields', path, decodeCustomRootFields) ?? {},
      customColumnNames: optional(o, 'custom_column_names', path, decodeCustomColumnNames) ?? {},
    };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const entry = tableEntry(md, args.table, '$.args');
    entry.configuration = { custom_root_fields: args.customRootFields, custom_column_names: args.customColumnNames };
    await ctx.work.change(md, { kind: 'table', table: args.table });
    return SUCCESS;
  },
});

