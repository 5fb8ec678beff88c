/**
 * Relationship operations: `create_object_relationship`, `create_array_relationship`,
 * `drop_relationship` (with `cascade` for permissions using it), `rename_relationship`,
 * `set_relationship_comment`.
 */
import { ApiError, qualifiedKey } from '../../core/index.js';
import {
  BuildError,
  MANY_FK,
  NO_FK,
  allRelationships,
  asString,
  decodeRelUsing,
  optional,
  removeObject,
  renameRelationshipRefs,
  required,
  resolveRelationship,
} from '../../metadata/index.js';
import type { RelType, RelationshipMetadata, RelationshipResolver, SchemaCache } from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';
import type { OpContext } from '../types.js';
import { dependentsOf } from '../dependents.js';
import { decodeWithTable, dropDependents, optionalBool, quote, quoteTable, tableEntry, trackedTableInfo } from './common.js';

export const resolverOf = (cache: SchemaCache): RelationshipResolver => (at, name) =>
  cache.tables.get(qualifiedKey(at))?.relationships.get(name)?.join.remoteTable;

function createRelationship(type: RelType) {
  return op({
    adminOnly: true,
    mutates: true,
    decode(args, path) {
      const { o, table } = decodeWithTable(args, path);
      const rel: RelationshipMetadata = {
        name: required(o, 'name', path, asString),
        using: required(o, 'using', path, (v, p) => decodeRelUsing(type, v, p)),
        comment: optional(o, 'comment', path, asString) ?? null,
      };
      return { table, rel };
    },
    async run(ctx: OpContext, args) {
      const info = await trackedTableInfo(ctx, args.table);
      const md = await ctx.work.draft();
      const entry = tableEntry(md, args.table);
      if (allRelationships(entry).some((r) => r.name === args.rel.name) || info.relationships.has(args.rel.name)) {
        throw new ApiError('already-exists', `column/relationship ${quote(args.rel.name)} of table ${quoteTable(args.table)} already exists`, { path: '$.args' });
      }
      try {
        const cache = await ctx.work.cache();
        resolveRelationship({ tables: cache.tables, snapshot: await ctx.work.snapshot() }, info, type, args.rel);
      } catch (e) {
        if (e instanceof BuildError && (e.message === NO_FK || e.message === MANY_FK)) {
          throw new ApiError('constraint-error', e.message, { path: '$.args' });
        }
        if (!(e instanceof BuildError)) throw e;
      }
      const key = type === 'object' ? 'object_relationships' : 'array_relationships';
      entry[key] = [...(entry[key] ?? []), args.rel];
      await ctx.work.change(md, { kind: 'relationship', table: args.table, name: args.rel.name, relType: type });
      return SUCCESS;
    },
  });
}

export const create_object_relationship = createRelationship('object');
export const create_array_relationship = createRelationship('array');

function findRelationship(md: ReturnType<typeof tableEntry>, name: string, path = '$.args.relationship'): RelationshipMetadata {
  const rel = allRelationships(md).find((r) => r.name === name);
  if (!rel) throw new ApiError('not-exists', `relationship ${quote(name)} does not exist`, { path });
  return rel;
}

export const drop_relationship = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const { o, table } = decodeWithTable(args, path);
    return { table, relationship: required(o, 'relationship', path, asString), cascade: optionalBool(o, 'cascade', path) };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const entry = tableEntry(md, args.table);
    findRelationship(entry, args.relationship);
    const key = `${qualifiedKey(args.table)}:${args.relationship}`;
    const dependents = dependentsOf(
      await ctx.work.result(),
      { table: args.table },
      (ref) => ref.kind === 'relationship' && `${qualifiedKey(ref.table)}:${ref.name}` === key,
    );
    dropDependents(md, dependents, args.cascade);
    removeObject(md, { kind: 'relationship', table: args.table, name: args.relationship });
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const rename_relationship = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const { o, table } = decodeWithTable(args, path);
    return { table, name: required(o, 'name', path, asString), newName: required(o, 'new_name', path, asString) };
  },
  async run(ctx, args) {
    const info = await trackedTableInfo(ctx, args.table);
    const md = await ctx.work.draft();
    const entry = tableEntry(md, args.table);
    const rel = findRelationship(entry, args.name, '$.args.name');
    if (args.newName !== args.name) {
      const taken = allRelationships(entry).some((r) => r.name === args.newName) || info.columnsByName.has(args.newName) || info.computedFields.has(args.newName);
      if (taken) {
        throw new ApiError('already-exists', `column/relationship ${quote(args.newName)} of table ${quoteTable(args.table)} already exists`, { path: '$.args' });
      }
      renameRelationshipRefs(md, args.table, args.name, args.newName, resolverOf(await ctx.work.cache()));
      rel.name = args.newName;
    }
    const relType = (entry.object_relationships ?? []).includes(rel) ? 'object' : 'array';
    await ctx.work.change(md, { kind: 'relationship', table: args.table, name: args.newName, relType });
    return SUCCESS;
  },
});

export const set_relationship_comment = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const { o, table } = decodeWithTable(args, path);
    return { table, name: required(o, 'name', path, asString), comment: optional(o, 'comment', path, asString) ?? null };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const rel = findRelationship(tableEntry(md, args.table), args.name, '$.args.name');
    rel.comment = args.comment;
    await ctx.work.change(md);
    return SUCCESS;
  },
});
