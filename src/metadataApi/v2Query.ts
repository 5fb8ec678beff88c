/**
 * Hasura v2's `/v2/query` (the schema API): `run_sql` and the DML operations (`select`, `insert`,
 * `update`, `delete`, `count`), and `bulk` of them, each with an optional `source` (default
 * "default"), mapped onto the `/v1/query` operations that run them. Any other type is refused as
 * Hasura's derived parser refuses it (`parsing …RQLQuery failed, expected tag field to be one of
 * […]`); the run_sql of another backend (`mssql_run_sql`, `citus_run_sql`, …) is `not-supported`;
 * run_sql and the DML operations run on the source they name (`not-exists` for one the metadata does
 * not have): the DML resolves names and permissions against that source's cache and runs there.
 * Only run_sql needs an admin (Hasura's `queryNeedsAdmin`): the DML runs under the role's permissions.
 */
import { ApiError, pathKey } from '../core/index.js';
import { isObject, jsonTypeName } from '../metadata/index.js';
import type { Query } from './envelope.js';

type J = Record<string, unknown>;

/** The operations Hasura v2's `RQLQuery` decodes, in its order (the list its parse error names). */
const HASURA_V2_QUERY_TYPES = [
  'insert', 'select', 'update', 'delete', 'count', 'run_sql', 'mssql_run_sql', 'citus_run_sql', 'cockroach_run_sql',
  'mysql_run_sql', 'bigquery_run_sql', 'bigquery_database_inspection', 'bulk',
] as const;

/** The ones this engine runs (its one Postgres source). */
const SERVED: ReadonlySet<string> = new Set(['insert', 'select', 'update', 'delete', 'count', 'run_sql', 'bulk']);

/** Rewrites a `/v2/query` body into a `/v1/query` body (`source` checked and left out), or throws Hasura's error. */
export function translateV2Query(body: unknown, path = '$'): unknown {
  // A body that is not an object, or has no string `type`, gets /v1/query's decoding errors (aeson's words).
  if (!isObject(body) || typeof body.type !== 'string') return body;
  const { type, args } = body;
  if (!SERVED.has(type)) {
    if ((HASURA_V2_QUERY_TYPES as readonly string[]).includes(type)) {
      throw new ApiError('not-supported', `${JSON.stringify(type)} is for a ${type.split('_')[0]} source; this engine serves Postgres sources only: use "run_sql"`, { path });
    }
    throw new ApiError(
      'parse-failed',
      `parsing Hasura.Server.API.V2Query.RQLQuery failed, expected tag field to be one of ${JSON.stringify(HASURA_V2_QUERY_TYPES)}, but found tag ${JSON.stringify(type)}`,
      { path },
    );
  }
  if (type === 'bulk') {
    if (!Array.isArray(args)) return body; // decodeQuery's error
    return { type, args: args.map((q, i) => translateV2Query(q, pathKey(path, i))) };
  }
  if (!isObject(args)) return 'args' in body ? { type, args } : { type };
  const { source, ...rest } = args as J;
  if (source !== undefined && source !== null && source !== 'default') {
    if (typeof source !== 'string') throw new ApiError('parse-failed', `expected String, encountered ${jsonTypeName(source)}`, { path: pathKey(pathKey(path, 'args'), 'source') });
    // run_sql takes its source in its args; the DML runs over that source's view (the runner checks it exists).
    if (type === 'run_sql') return { type, args: { ...rest, source } };
    return { type, args: rest, source };
  }
  return { type, args: rest };
}

/** Hasura's `queryNeedsAdmin`: run_sql (also inside a bulk); the DML is checked by the role's permissions. */
export function v2QueryNeedsAdmin(q: Query): boolean {
  return q.type === 'bulk' ? q.items.some(v2QueryNeedsAdmin) : q.type === 'run_sql';
}
