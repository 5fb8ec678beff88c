/**
 * Remote schema and remote relationship operations: `add_remote_schema` (the remote is fetched and
 * checked first: unreachable or invalid, its customization included → 400 remote-schema-error; root fields
 * clashing with another remote → 400 unexpected, with the database's → 400 constraint-violation),
 * `update_remote_schema` (Hasura v2: the same checks, the permissions kept), `remove_remote_schema`
 * (refused while a remote relationship uses it), `reload_remote_schema` (a remote that was consistent
 * and now fails → 400 unexpected "cannot continue due to new inconsistent metadata", the schema fetched
 * before stays; one that was already inconsistent stays so and the request succeeds),
 * `create_/update_/delete_remote_relationship`, and Hasura v2's `create_/update_/delete_remote_schema_remote_relationship`
 * (relationships of the remote's types to tables).
 */
import { ApiError, qualifiedKey, type QualifiedTable } from '../../core/index.js';
import { isObjectType, isScalarType, type GraphQLSchema } from 'graphql';
import { ADMIN_ROLE } from '../../core/index.js';
import { databaseRootFields, getRoleSchema } from '../../graphql/index.js';
import {
  asObject, asString, customizedRemote, decodeRemoteRelationshipDef, decodeRemoteSchema, remoteConflict, remoteRootFieldNames, remoteRelationshipsOf, remoteSchemasOf, toRemoteSchema,
  required, resolveRemoteSchema, BuildError, isObject, findSource, decodeTypeRelationship,
} from '../../metadata/index.js';
import type { Metadata, MetadataObjectId } from '../../metadata/index.js';
import type { RemoteRelationshipMetadata, RemoteSchemaInfo, RemoteSchemaMetadata } from '../../metadata/index.js';
import type { IntrospectionTypeRef } from 'graphql';
import { fetchRemoteIntrospection } from '../../remoteSchemas/index.js';
import { ENGINE_PARTS } from '../../appState.js';
import { op, SUCCESS, type OpContext } from '../types.js';
import { assertNoNewInconsistencies } from '../workingState.js';
import { decodeWithTable, quote, tableEntry, trackedTableInfo } from './common.js';

/** Whether a raw metadata list entry is the object named `name`. */
const named = (name: string) => (r: unknown): boolean => isObject(r) && r.name === name;

const notFound = (name: string, path = '$.args') => new ApiError('not-exists', `remote schema with name ${quote(name)} does not exist`, { path });

/**
 * The checks of a new or changed remote schema definition (`except`: the remote being updated):
 * fetched and valid (customization included), root fields and types clear of the other remotes' and
 * the database's.
 */
async function checkedRemote(ctx: Parameters<typeof add_remote_schema.run>[0], args: RemoteSchemaMetadata, except?: string): Promise<void> {
  const fetched = await fetchRemoteIntrospection(args);
  let info: RemoteSchemaInfo;
  try {
    info = resolveRemoteSchema(args, fetched);
  } catch (e) {
    if (!(e instanceof BuildError)) throw e;
    throw new ApiError('remote-schema-error', e.message, { path: '$.args' });
  }
  const cache = await ctx.work.cache();
  const others = [...(cache.remoteSchemas?.values() ?? [])].filter((r) => r.name !== except);
  const clash = remoteConflict(info, others);
  if (clash) throw new ApiError('unexpected', clash, { path: '$.args' });
  const db = databaseRootFields(cache);
  const mine = remoteRootFieldNames(info);
  const dbClash = [...mine.query.filter((n) => db.query.includes(n)), ...mine.mutation.filter((n) => db.mutation.includes(n))];
  if (dbClash.length > 0) {
    throw new ApiError('constraint-violation', `types/root fields of the remote schema conflict with the database: ${dbClash.map(quote).join(', ')}`, { path: '$.args' });
  }
  // Updating: the admin schema still holds the remote's current types, which are not a conflict.
  const typeClash = except === undefined ? typeConflicts(info, others, getRoleSchema(cache, ADMIN_ROLE, ENGINE_PARTS.schema).schema) : typeConflicts(info, others);
  if (typeClash.length > 0) {
    throw new ApiError('constraint-violation', `types of the remote schema conflict with existing types: ${typeClash.map(quote).join(', ')}`, { path: '$.args' });
  }
}

export const add_remote_schema = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeRemoteSchema(args, path),
  async run(ctx, args) {
    const md = await ctx.work.draft();
    if (remoteSchemasOf(md).some((r) => r.name === args.name)) {
      throw new ApiError('already-exists', `remote schema with name ${quote(args.name)} already exists`, { path: '$.args' });
    }
    await checkedRemote(ctx, args);
    md.remote_schemas = [...(md.remote_schemas ?? []), args];
    await ctx.work.remoteInputs(md);
    await ctx.work.change(md, { kind: 'remote_schema', name: args.name });
    return SUCCESS;
  },
});

/**
 * Hasura v2's `update_remote_schema`: a new definition (and comment) for an existing remote schema,
 * checked as add_remote_schema's; its permissions stay, and what uses it (remote relationships,
 * permissions) must still hold against the new schema, else nothing changes (400, the new inconsistency).
 */
export const update_remote_schema = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeRemoteSchema(args, path),
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const current = remoteSchemasOf(md).find((r) => r.name === args.name);
    if (!current) throw notFound(args.name);
    await checkedRemote(ctx, args, args.name);
    const next: RemoteSchemaMetadata = { name: args.name, definition: args.definition };
    if (args.comment !== undefined) next.comment = args.comment;
    const permissions = args.permissions ?? current.permissions;
    if (permissions && permissions.length > 0) next.permissions = permissions;
    // Its types' relationships stay too (checked against the new schema by the build).
    const rels = args.remote_relationships ?? current.remote_relationships;
    if (rels && rels.length > 0) next.remote_relationships = rels;
    md.remote_schemas = (md.remote_schemas ?? []).map((r) => (named(args.name)(r) ? next : r));
    await ctx.work.remoteInputs(md);
    await ctx.work.change(md);
    return SUCCESS;
  },
});

const decodeName = (args: unknown, path: string) => ({ name: required(asObject(args, path), 'name', path, asString) });

export const remove_remote_schema = op({
  adminOnly: true,
  mutates: true,
  decode: decodeName,
  async run(ctx, args) {
    const md = await ctx.work.draft();
    if (!remoteSchemasOf(md).some((r) => r.name === args.name)) throw notFound(args.name);
    // Relationships of any source's tables to it (and of other remotes' types) keep it.
    const users = [{ name: 'default', tables: md.tables }, ...(md.sources ?? [])].flatMap((s) => s.tables.flatMap((t) => remoteRelationshipsOf(t)
      .filter((r) => toRemoteSchema(r)?.remote_schema === args.name)
      .map((r) => `${s.name === 'default' ? '' : `${s.name}.`}${t.table.name}.${r.name}`)));
    if (users.length > 0) {
      throw new ApiError('dependency-error', `cannot drop due to the following dependent objects: ${users.map((u) => `remote_relationship ${u}`).join(', ')}`, { path: '$.args' });
    }
    md.remote_schemas = (md.remote_schemas ?? []).filter((r) => !named(args.name)(r));
    ctx.work.adopt(md, await ctx.work.buildFor(md));
    return SUCCESS;
  },
});

export const reload_remote_schema = op({
  adminOnly: true,
  mutates: true,
  decode: decodeName,
  async run(ctx, args) {
    const md = await ctx.work.draft();
    if (!remoteSchemasOf(md).some((r) => r.name === args.name)) throw notFound(args.name);
    // Hasura's withNewInconsistentObjsCheck: a remote that was consistent and now fails (down, or its
    // schema no longer valid) refuses the reload, and the schema fetched before stays in use.
    const before = await ctx.work.result();
    await ctx.work.refetchRemotes(new Set([args.name]));
    const after = await ctx.work.buildFor(md);
    assertNoNewInconsistencies(before.inconsistent, after.inconsistent);
    ctx.work.adopt(md, after);
    return SUCCESS;
  },
});

function decodeRel(args: unknown, path: string) {
  const { o, table } = decodeWithTable(args, path);
  return { table, rel: decodeRemoteRelationshipDef(o, path) };
}

/**
 * The table of the operation's source (`ctx.source`): its built info and its
 * entry in `md`, and the id of a relationship of it as the inconsistency check names it.
 */
async function sourceTable(ctx: OpContext, table: QualifiedTable, md: Metadata) {
  if (ctx.source === 'default') {
    return { info: await trackedTableInfo(ctx, table), entry: tableEntry(md, table), id: (name: string): MetadataObjectId => ({ kind: 'remote_relationship', table, name }) };
  }
  const source = ctx.source;
  const info = (await ctx.work.cache()).sources?.get(source)?.tables.get(qualifiedKey(table));
  const entry = findSource(md, source)?.tables.find((t) => t.table.schema === table.schema && t.table.name === table.name);
  if (!info || !entry) throw new ApiError('not-exists', `table ${quote(table.name)} does not exist in source: ${source}`, { path: '$.args.table' });
  return { info, entry, id: (name: string): MetadataObjectId => ({ kind: 'source_object', source, id: { kind: 'remote_relationship', table, name } }) };
}

function writeRelationship(mode: 'create' | 'update') {
  return op({
    adminOnly: true,
    mutates: true,
    decode: decodeRel,
    async run(ctx, args) {
      const md = await ctx.work.draft();
      const { info, entry, id } = await sourceTable(ctx, args.table, md);
      const existing = remoteRelationshipsOf(entry).some((r) => r.name === args.rel.name);
      if (mode === 'create' && (existing || info.columnsByName.has(args.rel.name) || info.relationships.has(args.rel.name))) {
        throw new ApiError('already-exists', `field with name ${quote(args.rel.name)} already exists in table ${quote(args.table.name)}`, { path: '$.args' });
      }
      if (mode === 'update' && !existing) {
        throw new ApiError('not-exists', `remote relationship with name ${quote(args.rel.name)} does not exist`, { path: '$.args' });
      }
      const list = entry.remote_relationships ?? [];
      entry.remote_relationships = mode === 'create' ? [...list, args.rel] : list.map((r) => (named(args.rel.name)(r) ? args.rel : r));
      await ctx.work.change(md, id(args.rel.name));
      return SUCCESS;
    },
  });
}

export const create_remote_relationship = writeRelationship('create');
export const update_remote_relationship = writeRelationship('update');

export const delete_remote_relationship = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const { o, table } = decodeWithTable(args, path);
    return { table, name: required(o, 'name', path, asString) };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const { entry } = await sourceTable(ctx, args.table, md);
    if (!remoteRelationshipsOf(entry).some((r) => r.name === args.name)) {
      throw new ApiError('not-exists', `remote relationship with name ${quote(args.name)} does not exist`, { path: '$.args' });
    }
    entry.remote_relationships = (entry.remote_relationships ?? []).filter((r) => !named(args.name)(r));
    ctx.work.adopt(md, await ctx.work.buildFor(md));
    return SUCCESS;
  },
});

/**
 * Hasura v2's `create_` / `update_remote_schema_remote_relationship`: a relationship of the remote's
 * object type `type_name` to a table of any source (`to_source`); checked by the build (the type,
 * its join fields, the target table and columns), a new inconsistency refuses it, nothing changes.
 */
function decodeTypeRel(args: unknown, path: string) {
  const o = asObject(args, path);
  const rel = decodeTypeRelationship({ name: o.name, definition: o.definition }, path);
  if (!isObject(rel.definition) || !('to_source' in rel.definition)) {
    throw new ApiError('not-supported', 'relationships from a remote schema\'s type to another remote schema (to_remote_schema) are not supported: relate the type to a table (to_source)', { path: `${path}.definition.to_remote_schema` });
  }
  return { remote_schema: required(o, 'remote_schema', path, asString), type_name: required(o, 'type_name', path, asString), rel };
}

/** The remote's entry in `md` (the draft) and the relationships of `type_name` in it. */
function typeRelationships(md: Metadata, remote: string, typeName: string) {
  const entry = remoteSchemasOf(md).find((r) => r.name === remote);
  if (!entry) throw notFound(remote, '$.args.remote_schema');
  const list = entry.remote_relationships ?? [];
  const forType = list.find((t) => isObject(t) && t.type_name === typeName);
  const rels = forType && Array.isArray(forType.relationships) ? forType.relationships : [];
  const put = (next: RemoteRelationshipMetadata[]): void => {
    const forNext = next.length > 0 ? [{ type_name: typeName, relationships: next }] : [];
    const updated = forType ? list.flatMap((t) => (t === forType ? forNext : [t])) : [...list, ...forNext];
    if (updated.length > 0) entry.remote_relationships = updated;
    else delete entry.remote_relationships;
  };
  return { rels, put };
}

function writeTypeRelationship(mode: 'create' | 'update') {
  return op({
    adminOnly: true,
    mutates: true,
    decode: decodeTypeRel,
    async run(ctx, args) {
      const md = await ctx.work.draft();
      const { rels, put } = typeRelationships(md, args.remote_schema, args.type_name);
      const existing = rels.some(named(args.rel.name));
      if (mode === 'create' && existing) {
        throw new ApiError('already-exists', `remote relationship with name ${quote(args.rel.name)} already exists on type ${quote(args.type_name)} of remote schema ${quote(args.remote_schema)}`, { path: '$.args' });
      }
      if (mode === 'update' && !existing) {
        throw new ApiError('not-exists', `remote relationship with name ${quote(args.rel.name)} does not exist on type ${quote(args.type_name)} of remote schema ${quote(args.remote_schema)}`, { path: '$.args' });
      }
      put(mode === 'create' ? [...rels, args.rel] : rels.map((r) => (named(args.rel.name)(r) ? args.rel : r)));
      await ctx.work.change(md, { kind: 'remote_schema_remote_relationship', remote_schema: args.remote_schema, type_name: args.type_name, name: args.rel.name });
      return SUCCESS;
    },
  });
}

export const create_remote_schema_remote_relationship = writeTypeRelationship('create');
export const update_remote_schema_remote_relationship = writeTypeRelationship('update');

export const delete_remote_schema_remote_relationship = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const o = asObject(args, path);
    return { remote_schema: required(o, 'remote_schema', path, asString), type_name: required(o, 'type_name', path, asString), name: required(o, 'name', path, asString) };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const { rels, put } = typeRelationships(md, args.remote_schema, args.type_name);
    if (!rels.some(named(args.name))) {
      throw new ApiError('not-exists', `remote relationship with name ${quote(args.name)} does not exist on type ${quote(args.type_name)} of remote schema ${quote(args.remote_schema)}`, { path: '$.args' });
    }
    put(rels.filter((r) => !named(args.name)(r)));
    ctx.work.adopt(md, await ctx.work.buildFor(md));
    return SUCCESS;
  },
});

const show = (t: IntrospectionTypeRef): string => (t.kind === 'NON_NULL' ? `${show(t.ofType)}!` : t.kind === 'LIST' ? `[${show(t.ofType)}]` : t.name);

/**
 * Type names the remote shares with the database schema or another remote with a different
 * definition (as Hasura v1.3 merges them: the same name must mean the same type; scalars always merge).
 */
function typeConflicts(upstream: RemoteSchemaInfo, others: Iterable<RemoteSchemaInfo>, db?: GraphQLSchema): string[] {
  // Types as the engine's schema names them (customizations applied).
  const info = customizedRemote(upstream);
  const out: string[] = [];
  const otherList = [...others].map(customizedRemote);
  for (const t of info.introspection.__schema.types) {
    if (t.name.startsWith('__') || t.kind === 'SCALAR') continue;
    if (t.name === info.queryRoot?.name || t.name === info.mutationRoot?.name) continue;
    const mine = JSON.stringify(t);
    if (otherList.some((o) => o.types.has(t.name) && JSON.stringify(o.types.get(t.name)) !== mine)) {
      out.push(t.name);
      continue;
    }
    const existing = db?.getType(t.name);
    if (!existing || isScalarType(existing)) continue;
    if (t.kind !== 'OBJECT' || !isObjectType(existing)) {
      out.push(t.name);
      continue;
    }
    const fields = existing.getFields();
    const same = t.fields.length === Object.keys(fields).length && t.fields.every((f) => fields[f.name] && String(fields[f.name].type) === show(f.type));
    if (!same) out.push(t.name);
  }
  return out;
}
