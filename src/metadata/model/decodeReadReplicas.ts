/**
 * `read_replicas` (Hasura v2's setting of a source's `configuration`, kept at the top of the
 * engine's version-2 document): a list of `{database_url, pool_settings?, ...}` where
 * `database_url` is a postgres:// URL or `{from_env: NAME}` and `pool_settings.max_connections`
 * the replica's pool size. Other keys Hasura allows there (`isolation_level`,
 * `use_prepared_statements`, `ssl_configuration`, other pool settings) are kept as given, so an
 * export → replace → export round trip returns the same document.
 */
import { pathKey } from '../../core/index.js';
import type { ReadReplicaMetadata } from './metadata.js';
import { asArray, asObject, asString, cloneJson, optional, parseError, rejectUnknownKeys, required } from './json.js';

const KEYS = ['database_url', 'pool_settings', 'isolation_level', 'use_prepared_statements', 'ssl_configuration'];

function decodeDatabaseUrl(v: unknown, path: string): ReadReplicaMetadata['database_url'] {
  if (typeof v === 'string') {
    if (!/^postgres(ql)?:\/\/./.test(v)) throw parseError('expected a postgres:// or postgresql:// URL', path);
    return v;
  }
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['from_env'], 'a database_url', path);
  return { from_env: required(o, 'from_env', path, asString) };
}

function decodeReplica(v: unknown, path: string): ReadReplicaMetadata {
  const o = asObject(v, path);
  rejectUnknownKeys(o, KEYS, 'a read replica', path);
  const out = cloneJson(o) as unknown as ReadReplicaMetadata;
  out.database_url = required(o, 'database_url', path, decodeDatabaseUrl);
  const pool = optional(o, 'pool_settings', path, asObject);
  const max = pool?.max_connections;
  if (max !== undefined && (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1)) {
    throw parseError(`expected a positive integer, encountered ${JSON.stringify(max)}`, pathKey(pathKey(path, 'pool_settings'), 'max_connections'));
  }
  return out;
}

/** Decodes the list (`[]` and null are no replicas). */
export function decodeReadReplicas(v: unknown, path: string): ReadReplicaMetadata[] {
  if (v === null) return [];
  return asArray(v, path).map((r, i) => decodeReplica(r, `${path}[${i}]`));
}

