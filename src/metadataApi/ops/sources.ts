/**
 * The Postgres sources beside `default` (Hasura v2's `pg_add_source`, `pg_drop_source`,
 * `rename_source`; `pg_update_source` is updateSource.ts): each is an entry of the metadata's
 * `sources` with its own connection, read through its own pool. Adding (or reconfiguring) a source
 * reads its database inside the request: one that cannot be reached is refused whole, nothing stored.
 * Messages and codes are Hasura's.
 */
import { ApiError } from '../../core/index.js';
import {
  asBool, asObject, decodeSourceConfiguration, decodeSourceCustomization, decodeSourceName, DEFAULT_SOURCE, findSource, optional, rejectUnknownKeys, required,
  type SourceCustomization, type SourceMetadata,
} from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';

const quote = (s: string): string => JSON.stringify(s);

interface AddSourceArgs {
  name: string;
  configuration: SourceMetadata['configuration'];
  customization?: SourceCustomization;
  replaceConfiguration: boolean;
}

export const add_source = op({
  adminOnly: true,
  mutates: true,
  decode(args, path): AddSourceArgs {
    const o = asObject(args, path);
    rejectUnknownKeys(o, ['name', 'kind', 'configuration', 'replace_configuration', 'customization', 'health_check'], 'add_source', path);
    const name = required(o, 'name', path, decodeSourceName);
    if (o.health_check !== undefined && o.health_check !== null) throw new ApiError('not-supported', 'source health checks are not supported: an unreachable source is reported by get_inconsistent_metadata', { path: `${path}.health_check` });
    const out: AddSourceArgs = {
      name,
      configuration: required(o, 'configuration', path, decodeSourceConfiguration),
      replaceConfiguration: optional(o, 'replace_configuration', path, asBool) ?? false,
    };
    const customization = optional(o, 'customization', path, decodeSourceCustomization);
    if (customization && (customization.naming_convention || customization.root_fields || customization.type_names)) out.customization = customization;
    return out;
  },
  async run(ctx, args) {
    if (args.name === DEFAULT_SOURCE) {
      throw new ApiError('already-exists', `source with name ${quote(args.name)} already exists`, { path: ctx.path });
    }
    const md = await ctx.work.draft();
    const have = findSource(md, args.name);
    if (have && !args.replaceConfiguration) throw new ApiError('already-exists', `source with name ${quote(args.name)} already exists`, { path: ctx.path });
    if (have) {
      have.configuration = args.configuration;
      if (args.customization) have.customization = args.customization;
      else delete have.customization;
    } else {
      const source: SourceMetadata = { name: args.name, kind: 'postgres', configuration: args.configuration, tables: [] };
      if (args.customization) source.customization = args.customization;
      md.sources = [...(md.sources ?? []), source];
    }
    await ctx.work.change(md, { kind: 'source', name: args.name });
    return SUCCESS;
  },
});

export const drop_source = op({
  adminOnly: true,
  mutates: true,
  decode(args, path): { name: string; cascade: boolean } {
    const o = asObject(args, path);
    rejectUnknownKeys(o, ['name', 'cascade'], 'drop_source', path);
    return { name: required(o, 'name', path, decodeSourceName), cascade: optional(o, 'cascade', path, asBool) ?? false };
  },
  async run(ctx, args) {
    if (args.name === DEFAULT_SOURCE) {
      throw new ApiError('not-supported', 'the "default" source is the engine\'s own database (--database-url) and cannot be dropped; untrack its tables instead', { path: ctx.path });
    }
    const md = await ctx.work.draft();
    if (!findSource(md, args.name)) throw new ApiError('not-exists', `source with name ${quote(args.name)} does not exist`, { path: ctx.path });
    // Its own tables, relationships, permissions and functions go with it. The relationships of other
    // sources' tables that join to it (`to_source`) depend on it: refused without `cascade`, dropped with it.
    const joining = (r: unknown): boolean => {
      const to = (r as { definition?: { to_source?: { source?: unknown } } } | null)?.definition?.to_source;
      return to !== undefined && to !== null && to.source === args.name;
    };
    const others = [{ name: DEFAULT_SOURCE, tables: md.tables }, ...md.sources!.filter((s) => s.name !== args.name)];
    const dependents = others.flatMap((s) => s.tables.flatMap((t) => (t.remote_relationships ?? []).filter(joining).map((r) => `remote_relationship ${(r as { name: string }).name} in table ${t.table.schema}.${t.table.name} of source ${s.name}`)));
    if (dependents.length > 0 && !args.cascade) {
      throw new ApiError('dependency-error', `cannot drop due to the following dependent objects: ${dependents.join(', ')}`, { path: ctx.path });
    }
    for (const s of others) {
      for (const t of s.tables) {
        if (!(t.remote_relationships ?? []).some(joining)) continue;
        t.remote_relationships = t.remote_relationships!.filter((r) => !joining(r));
        if (t.remote_relationships.length === 0) delete t.remote_relationships;
      }
    }
    md.sources = md.sources!.filter((s) => s.name !== args.name);
    if (md.sources.length === 0) delete md.sources;
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const rename_source = op({
  adminOnly: true,
  mutates: true,
  decode(args, path): { name: string; newName: string } {
    const o = asObject(args, path);
    rejectUnknownKeys(o, ['name', 'new_name'], 'rename_source', path);
    return { name: required(o, 'name', path, decodeSourceName), newName: required(o, 'new_name', path, decodeSourceName) };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    if (args.name !== DEFAULT_SOURCE && !findSource(md, args.name)) throw new ApiError('not-exists', `Could not find source with name ${quote(args.name)}`, { path: ctx.path });
    if (args.newName === DEFAULT_SOURCE || findSource(md, args.newName)) throw new ApiError('already-exists', `Source with name ${quote(args.newName)} already exists`, { path: ctx.path });
    if (args.name === DEFAULT_SOURCE) {
      throw new ApiError('not-supported', 'the "default" source is the engine\'s own database and keeps its name', { path: ctx.path });
    }
    md.sources = md.sources!.map((s) => (s.name === args.name ? { ...s, name: args.newName } : s));
    await ctx.work.change(md, { kind: 'source', name: args.newName });
    return SUCCESS;
  },
});
