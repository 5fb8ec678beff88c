/**
 * The stored queries REST endpoints serve, validated against the admin schema as Hasura v2 validates
 * stored queries whenever it builds its schema cache (`getInconsistentQueryCollections`): a query
 * that does not parse, holds no single operation or does not validate is an inconsistent
 * `query_collections` object. Metadata operations refuse a change that makes one newly invalid
 * (`create_rest_endpoint` for a bad query, a `run_sql` dropping a column the query reads, an
 * `untrack_table`...), so an endpoint's query keeps working; `get_inconsistent_metadata` lists
 * those already invalid. The reason names the endpoints and whether the query is on the allow-list.
 *
 * Hasura validates every stored query, allow-list ones included; here only those an endpoint
 * serves: graphql-js takes ~0.2-1 ms per query, and an allow-list of tens of thousands of queries
 * would make every metadata change seconds long (an allow-listed query is checked when a client
 * sends it, against the schema of that moment).
 */
import { GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Inconsistency, Metadata } from '../../metadata/index.js';
import { selectOperation } from './validate.js';

const quoteAll = (xs: readonly string[]): string => xs.map((x) => `"${x}"`).join(', ');

/** Why `query` is not a valid request of `schema` (empty: it is). */
function queryErrors(schema: GraphQLSchema, query: string): string[] {
  let doc: DocumentNode;
  try {
    doc = parse(query);
  } catch (e) {
    return [e instanceof GraphQLError ? e.message : String(e)];
  }
  try {
    selectOperation(doc, undefined);
  } catch (e) {
    return [e instanceof Error ? e.message : String(e)];
  }
  return validate(schema, doc).map((e) => e.message);
}

/** The stored queries of `md` that REST endpoints serve and that do not validate against `schema` (the admin schema). */
export function collectionQueryInconsistencies(schema: GraphQLSchema, md: Metadata): Inconsistency[] {
  const out: Inconsistency[] = [];
  const allowed = new Set((md.allowlist ?? []).map((a) => a.collection));
  for (const c of md.query_collections ?? []) {
    for (const q of c.definition.queries) {
      const endpoints = (md.rest_endpoints ?? [])
        .filter((e) => e.definition.query.collection_name === c.name && e.definition.query.query_name === q.name)
        .map((e) => e.name);
      if (endpoints.length === 0) continue;
      const errors = queryErrors(schema, q.query);
      if (errors.length === 0) continue;
      const reason = `Inconsistent object: In query collection "${c.name}" the query "${q.name}" is invalid with the following error(s): ${quoteAll(errors)}`
        + `. This query is being used in the following REST endpoint(s): ${quoteAll(endpoints)}`
        + (allowed.has(c.name) ? '. This query is in allowlist.' : '');
      out.push({
        id: { kind: 'query_collection_query', collection: c.name, query: q.name },
        object: { type: 'query_collections', name: `query_collections ${q.name} in ${c.name}`, definition: { name: q.name, query: q.query }, reason },
      });
    }
  }
  return out;
}
