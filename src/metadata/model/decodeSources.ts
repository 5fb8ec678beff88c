/**
 * `sources` of the document: the Postgres sources beside `default` (Hasura v2's version-3
 * `sources[i]`): `{name, kind: "postgres", configuration: {connection_info, read_replicas?},
 * tables, functions?, customization?}`. `connection_info.database_url` is a postgres:// URL,
 * `{from_env}` or `{connection_parameters: {host, port, username, password, database}}`;
 * `pool_settings`, `isolation_level` and `use_prepared_statements` as Hasura has them.
 */
import { ApiError, pathKey } from '../../core/index.js';
import { duplicateValues } from '../../lib/index.js';
import type { DatabaseUrlConf, SourceConnectionInfo, SourceMetadata } from './metadata.js';
import { arrayOf, asObject, asString, cloneJson, optional, parseError, rejectUnknownKeys, required } from './json.js';
import { decodeFunctionMetadata, decodeTableMetadata } from './decodeTable.js';
import { decodeReadReplicas } from './decodeReadReplicas.js';
import { decodeSourceCustomization } from './decodeSourceCustomization.js';
import { decodeLogicalModel, decodeNativeQuery } from './decodeNativeQueries.js';

const ISOLATION_LEVELS = ['read-committed', 'repeatable-read', 'serializable'] as const;
const POOL_KEYS = ['max_connections', 'total_max_connections', 'idle_timeout', 'connection_lifetime', 'retries', 'pool_timeout'];

/** A source name: a non-empty string (Hasura's `SourceName`). */
export function decodeSourceName(v: unknown, path: string): string {
  const name = asString(v, path);
  if (name.length === 0) throw parseError('a source name must not be empty', path);
  return name;
}

export function decodeDatabaseUrl(v: unknown, path: string): DatabaseUrlConf {
  if (typeof v === 'string') {
    if (!/^postgres(ql)?:\/\/./.test(v)) throw parseError('expected a postgres:// or postgresql:// URL', path);
    return v;
  }
  const o = asObject(v, path);
  if ('from_env' in o) {
    rejectUnknownKeys(o, ['from_env'], 'a database_url', path);
    return { from_env: required(o, 'from_env', path, asString) };
  }
  rejectUnknownKeys(o, ['connection_parameters'], 'a database_url', path);
  const p = required(o, 'connection_parameters', path, asObject);
  const pp = pathKey(path, 'connection_parameters');
  rejectUnknownKeys(p, ['host', 'port', 'username', 'password', 'database'], 'connection parameters', pp);
  const out: Extract<DatabaseUrlConf, { connection_parameters: unknown }>['connection_parameters'] = {
    host: required(p, 'host', pp, asString),
    database: required(p, 'database', pp, asString),
  };
  const port = p.port;
  if (port !== undefined && port !== null) {
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) throw parseError(`expected a port number, encountered ${JSON.stringify(port)}`, pathKey(pp, 'port'));
    out.port = port;
  }
  const username = optional(p, 'username', pp, asString);
  if (username !== undefined) out.username = username;
  const password = optional(p, 'password', pp, asString);
  if (password !== undefined) out.password = password;
  return { connection_parameters: out };
}

export function decodeConnectionInfo(v: unknown, path: string): SourceConnectionInfo {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['database_url', 'pool_settings', 'isolation_level', 'use_prepared_statements', 'ssl_configuration'], 'connection_info', path);
  if (o.ssl_configuration !== undefined && o.ssl_configuration !== null) {
    throw parseError('ssl_configuration is not supported: give the TLS settings in the URL (sslmode, sslrootcert...)', pathKey(path, 'ssl_configuration'));
  }
  const out: SourceConnectionInfo = { database_url: required(o, 'database_url', path, decodeDatabaseUrl) };
  const pool = optional(o, 'pool_settings', path, asObject);
  if (pool) {
    const pp = pathKey(path, 'pool_settings');
    rejectUnknownKeys(pool, POOL_KEYS, 'pool_settings', pp);
    for (const [k, x] of Object.entries(pool)) {
      if (x === null) continue;
      if (typeof x !== 'number' || !Number.isFinite(x) || x < (k === 'retries' ? 0 : 1) || (k.endsWith('connections') && !Number.isInteger(x))) {
        throw parseError(`expected a positive number, encountered ${JSON.stringify(x)}`, pathKey(pp, k));
      }
    }
    out.pool_settings = cloneJson(pool) as SourceConnectionInfo['pool_settings'];
  }
  const iso = o.isolation_level;
  if (iso !== undefined && iso !== null) {
    if (!(ISOLATION_LEVELS as readonly unknown[]).includes(iso)) {
      throw parseError(`expected one of ${ISOLATION_LEVELS.map((l) => JSON.stringify(l)).join(', ')}, encountered ${JSON.stringify(iso)}`, pathKey(path, 'isolation_level'));
    }
    out.isolation_level = iso as SourceConnectionInfo['isolation_level'];
  }
  const prepared = o.use_prepared_statements;
  if (prepared !== undefined && prepared !== null) {
    if (typeof prepared !== 'boolean') throw parseError(`expected Bool, encountered ${typeof prepared}`, pathKey(path, 'use_prepared_statements'));
    out.use_prepared_statements = prepared;
  }
  return out;
}

/** `configuration` of a source: its connection and read replicas. */
export function decodeSourceConfiguration(v: unknown, path: string): SourceMetadata['configuration'] {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['connection_info', 'read_replicas', 'extensions_schema'], 'a source configuration', path);
  const out: SourceMetadata['configuration'] = { connection_info: required(o, 'connection_info', path, decodeConnectionInfo) };
  const replicas = optional(o, 'read_replicas', path, decodeReadReplicas);
  if (replicas && replicas.length > 0) out.read_replicas = replicas;
  return out;
}

/** One further source (`name` other than `default`). */
export function decodeSource(v: unknown, path: string): SourceMetadata {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['name', 'kind', 'configuration', 'tables', 'functions', 'logical_models', 'native_queries', 'customization'], 'a source', path);
  const name = required(o, 'name', path, decodeSourceName);
  const kind = o.kind ?? 'postgres';
  if (kind !== 'postgres' && kind !== 'pg') throw parseError(`source ${JSON.stringify(name)}: only Postgres sources are supported, found kind ${JSON.stringify(kind)}`, pathKey(path, 'kind'));
  const out: SourceMetadata = {
    name,
    kind: 'postgres',
    configuration: required(o, 'configuration', path, decodeSourceConfiguration),
    tables: optional(o, 'tables', path, arrayOf(decodeTableMetadata)) ?? [],
  };
  const functions = optional(o, 'functions', path, arrayOf(decodeFunctionMetadata));
  if (functions && functions.length > 0) out.functions = functions;
  const logicalModels = optional(o, 'logical_models', path, arrayOf(decodeLogicalModel));
  if (logicalModels && logicalModels.length > 0) out.logical_models = logicalModels;
  const nativeQueries = optional(o, 'native_queries', path, arrayOf(decodeNativeQuery));
  if (nativeQueries && nativeQueries.length > 0) out.native_queries = nativeQueries;
  const customization = optional(o, 'customization', path, decodeSourceCustomization);
  if (customization && (customization.naming_convention || customization.root_fields || customization.type_names)) out.customization = customization;
  return out;
}

/** The list; `default` is the document itself and names no entry here; names are unique. */
export function decodeSources(v: unknown, path: string): SourceMetadata[] {
  const list = arrayOf(decodeSource)(v, path);
  list.forEach((s, i) => {
    if (s.name === 'default') throw parseError('the "default" source is the document itself, not an entry of "sources"', `${path}[${i}].name`);
  });
  const dups = duplicateValues(list.map((s) => s.name));
  if (dups.length > 0) throw parseError(`multiple declarations exist for the following sources: ${dups.join(', ')}`, path);
  return list;
}
