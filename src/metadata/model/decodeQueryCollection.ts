/**
 * Decoders for query collections and allow-list entries (Hasura v1.3's `CreateCollection`,
 * `ListedQuery`, `CollectionReq`): names are non-empty text, every query must parse as a GraphQL
 * document (its original text is kept, as Hasura exports it). Also the whole-document checks
 * `replace_metadata` makes for these sections.
 */
import { parse } from 'graphql';
import { ApiError, pathKey } from '../../core/index.js';
import type { Metadata, QueryCollection } from './metadata.js';
import { arrayOf, asObject, asString, optional, parseError, required } from './json.js';
import { duplicateValues } from '../../lib/index.js';

/** Hasura's NonEmptyText (collection and query names). */
export function asNonEmptyText(v: unknown, path: string): string {
  const s = asString(v, path);
  if (s === '') throw parseError('empty string not allowed', path);
  return s;
}

/** A GraphQL document as text (`GQLQueryWithText`): must be a string that parses. */
export function asGraphqlQueryText(v: unknown, path: string): string {
  if (typeof v !== 'string') throw parseError('expecting a string for query', path);
  try {
    parse(v, { noLocation: true });
  } catch {
    throw parseError('parsing the graphql query failed', path);
  }
  return v;
}

/**
 * A query text read back from the catalog: it parsed when it was stored, so only its type is
 * checked (parsing 25,000 stored queries again on every metadata operation took ~300 ms).
 */
export function asStoredQueryText(v: unknown, path: string): string {
  if (typeof v !== 'string') throw parseError('expecting a string for query', path);
  return v;
}

type QueryTextDecoder = (v: unknown, path: string) => string;

/** One `{name, query}` of a collection's definition. */
export function decodeListedQuery(v: unknown, path: string, queryText: QueryTextDecoder = asGraphqlQueryText): { name: string; query: string } {
  const o = asObject(v, path);
  return { name: required(o, 'name', path, asNonEmptyText), query: required(o, 'query', path, queryText) };
}

/** `{name, definition: {queries}, comment?}`, keys in export order. */
export function decodeQueryCollection(v: unknown, path: string, queryText: QueryTextDecoder = asGraphqlQueryText): QueryCollection {
  const o = asObject(v, path);
  const name = required(o, 'name', path, asNonEmptyText);
  const definition = required(o, 'definition', path, (d, p) => {
    const dobj = asObject(d, p);
    return { queries: required(dobj, 'queries', p, arrayOf((q, qp) => decodeListedQuery(q, qp, queryText))) };
  });
  const comment = optional(o, 'comment', path, asString);
  return comment === undefined ? { name, definition } : { name, definition, comment };
}

/** `{collection}` (an allow-list entry, and the args of the allow-list operations). */
export function decodeCollectionReq(v: unknown, path: string): { collection: string } {
  const o = asObject(v, path);
  return { collection: required(o, 'collection', path, asNonEmptyText) };
}


/** Query names that occur twice in one collection (Hasura refuses these on create). */
export const duplicateQueryNames = (c: QueryCollection): string[] => duplicateValues(c.definition.queries.map((q) => q.name));

/**
 * `replace_metadata`'s checks for these sections: no collection or allow-list entry declared twice,
 * no duplicate query names in a collection, and every allow-listed collection defined.
 */
export function assertQueryCollectionsValid(md: Metadata, path = '$.args'): void {
  const collections = md.query_collections ?? [];
  const allowlist = md.allowlist ?? [];
  const collDups = duplicateValues(collections.map((c) => c.name));
  if (collDups.length) {
    throw new ApiError('already-exists', `multiple declarations exist for the following query collections: ${collDups.join(', ')}`, { path: pathKey(path, 'query_collections') });
  }
  const allowDups = duplicateValues(allowlist.map((a) => a.collection));
  if (allowDups.length) {
    throw new ApiError('already-exists', `multiple declarations exist for the following allow list: ${allowDups.join(', ')}`, { path: pathKey(path, 'allowlist') });
  }
  collections.forEach((c, i) => {
    const d = duplicateQueryNames(c);
    if (d.length) {
      throw new ApiError('not-supported', `found duplicate query names ${d.map((n) => JSON.stringify(n)).join(', ')}`, {
        path: `${pathKey(pathKey(path, 'query_collections'), i)}.definition.queries`,
      });
    }
  });
  const names = new Set(collections.map((c) => c.name));
  allowlist.forEach((a, i) => {
    if (!names.has(a.collection)) {
      throw new ApiError('not-exists', `query collection with name ${JSON.stringify(a.collection)} does not exists`, {
        path: `${pathKey(pathKey(path, 'allowlist'), i)}.collection`,
      });
    }
  });
}
