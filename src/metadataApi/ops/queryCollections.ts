/**
 * Query collections and the allow-list (Hasura v1.3 `Hasura.RQL.DDL.QueryCollection`):
 * `create_query_collection`, `drop_query_collection` (`cascade` also removes it from the
 * allow-list), `add_query_to_collection`, `drop_query_from_collection`,
 * `add_collection_to_allowlist`, `drop_collection_from_allowlist`. Each edits a metadata draft and
 * adopts it through `work.change` (the schema cache, with its precomputed allow-list, is rebuilt);
 * an error leaves the metadata as it was.
 */
import { ApiError } from '../../core/index.js';
import {
  asBool,
  asGraphqlQueryText,
  asNonEmptyText,
  asObject,
  decodeCollectionReq,
  decodeQueryCollection,
  duplicateQueryNames,
  required,
} from '../../metadata/index.js';
import type { Metadata, QueryCollection } from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';
import { quote } from './common.js';

const notExists = (name: string, path: string): ApiError =>
  new ApiError('not-exists', `query collection with name ${quote(name)} does not exists`, { path });

/** The collection named `name` in `md`, or Hasura's not-exists error at `path`. */
function collectionOf(md: Metadata, name: string, path: string): QueryCollection {
  const c = (md.query_collections ?? []).find((x) => x.name === name);
  if (!c) throw notExists(name, path);
  return c;
}

/** The endpoints that run a query of `collection` (of its query `query`, when given). */
const endpointsUsing = (md: Metadata, collection: string, query?: string): string[] =>
  (md.rest_endpoints ?? []).filter((e) => e.definition.query.collection_name === collection && (query === undefined || e.definition.query.query_name === query)).map((e) => e.name);

const inAllowlist = (md: Metadata, name: string): boolean => (md.allowlist ?? []).some((a) => a.collection === name);

export const create_query_collection = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeQueryCollection(args, path),
  async run(ctx, coll) {
    const md = await ctx.work.draft();
    if ((md.query_collections ?? []).some((c) => c.name === coll.name)) {
      throw new ApiError('already-exists', `query collection with name ${quote(coll.name)} already exists`, { path: '$.args.name' });
    }
    const dups = duplicateQueryNames(coll);
    if (dups.length > 0) {
      throw new ApiError('not-supported', `found duplicate query names ${dups.map(quote).join(', ')}`, { path: '$.args.definition.queries' });
    }
    md.query_collections = [...(md.query_collections ?? []), coll];
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const drop_query_collection = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const o = asObject(args, path);
    return { collection: required(o, 'collection', path, asNonEmptyText), cascade: required(o, 'cascade', path, asBool) };
  },
  async run(ctx, { collection, cascade }) {
    const md = await ctx.work.draft();
    collectionOf(md, collection, '$.args.collection');
    if (inAllowlist(md, collection)) {
      if (!cascade) {
        throw new ApiError('dependency-error', `query collection with name ${quote(collection)} is present in allowlist; cannot proceed to drop`, {
          path: '$.args.collection',
        });
      }
      md.allowlist = (md.allowlist ?? []).filter((a) => a.collection !== collection);
    }
    const users = endpointsUsing(md, collection);
    if (users.length > 0) {
      if (!cascade) {
        throw new ApiError('dependency-error', `query collection with name ${quote(collection)} is used by the REST endpoints ${users.map(quote).join(', ')}; cannot proceed to drop`, {
          path: '$.args.collection',
        });
      }
      md.rest_endpoints = (md.rest_endpoints ?? []).filter((e) => !users.includes(e.name));
      if (md.rest_endpoints.length === 0) delete md.rest_endpoints;
    }
    md.query_collections = (md.query_collections ?? []).filter((c) => c.name !== collection);
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const add_query_to_collection = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const o = asObject(args, path);
    return {
      collection: required(o, 'collection_name', path, asNonEmptyText),
      name: required(o, 'query_name', path, asNonEmptyText),
      query: required(o, 'query', path, asGraphqlQueryText),
    };
  },
  async run(ctx, { collection, name, query }) {
    const md = await ctx.work.draft();
    const c = collectionOf(md, collection, '$.args');
    if (c.definition.queries.some((q) => q.name === name)) {
      throw new ApiError('already-exists', `query with name ${quote(name)} already exists in collection ${quote(collection)}`, { path: '$.args' });
    }
    c.definition.queries.push({ name, query });
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const drop_query_from_collection = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const o = asObject(args, path);
    return { collection: required(o, 'collection_name', path, asNonEmptyText), name: required(o, 'query_name', path, asNonEmptyText) };
  },
  async run(ctx, { collection, name }) {
    const md = await ctx.work.draft();
    const c = collectionOf(md, collection, '$.args');
    if (!c.definition.queries.some((q) => q.name === name)) {
      throw new ApiError('not-found', `query with name ${quote(name)} not found in collection ${quote(collection)}`, { path: '$.args' });
    }
    const users = endpointsUsing(md, collection, name);
    if (users.length > 0) {
      throw new ApiError('dependency-error', `query with name ${quote(name)} is used by the REST endpoints ${users.map(quote).join(', ')}; cannot proceed to drop`, { path: '$.args' });
    }
    c.definition.queries = c.definition.queries.filter((q) => q.name !== name);
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const add_collection_to_allowlist = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeCollectionReq(args, path),
  async run(ctx, { collection }) {
    const md = await ctx.work.draft();
    collectionOf(md, collection, '$.args.collection');
    // Adding a collection that is already allowed changes nothing (no duplicate entry).
    if (inAllowlist(md, collection)) return SUCCESS;
    md.allowlist = [...(md.allowlist ?? []), { collection }];
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const drop_collection_from_allowlist = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeCollectionReq(args, path),
  async run(ctx, { collection }) {
    const md = await ctx.work.draft();
    collectionOf(md, collection, '$.args.collection');
    // As Hasura v1.3 (a DELETE of the allow-list row): a collection not on the list is no error.
    if (!inAllowlist(md, collection)) return SUCCESS;
    md.allowlist = (md.allowlist ?? []).filter((a) => a.collection !== collection);
    await ctx.work.change(md);
    return SUCCESS;
  },
});
