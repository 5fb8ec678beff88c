/**
 * Hasura v2's `/v1/metadata` request shape mapped onto the `/v1/query` operations, so tools
 * written against Hasura v2 work unchanged: `pg_<op>` names with `source: "default"` become
 * `<op>` (any other source is `not-exists`), `pg_set_table_customization` becomes
 * `set_table_custom_fields`, `replace_metadata` accepts the version-3 document (`sources`) and
 * `{metadata, allow_inconsistent_metadata}`, and `export_metadata` answers in version 3 (the
 * default source's `configuration.read_replicas` is the document's `read_replicas`);
 * `pg_add_source` of `default` with `replace_configuration: true` is `update_source`.
 */
import { ApiError } from '../core/index.js';
import { isOpType } from './operations.js';
import { ExportedMetadata } from './exportedMetadata.js';
import { VERSION_2_TYPES } from './envelope.js';
import { HASURA_V2_NOT_SUPPORTED, OTHER_BACKEND_PREFIX } from './hasuraV2Commands.js';

type J = Record<string, any>;

/** Operations /v1/metadata does not serve (run_sql and DML live on /v2/query in Hasura v2). */
const NOT_METADATA = new Set(['run_sql', 'select', 'insert', 'update', 'delete', 'count']);
/** Operations that take their v2 argument shape here (`{table, configuration}` etc.). */
const VERSION_2 = new Set(['track_table', 'track_function']);

function isObject(v: unknown): v is J {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The commands about sources themselves: their `name` is the source, not a `source` argument. */
const SOURCE_COMMANDS = new Set(['pg_add_source', 'pg_drop_source', 'pg_update_source', 'rename_source']);

/** `args` without `source`, and the source when it is not `default` (the runner answers for it: see runQuery.ts). */
function checkSource(args: J): { rest: J; other?: string } {
  const { source, ...rest } = args;
  return source !== undefined && source !== null && source !== 'default' ? { rest, other: String(source) } : { rest };
}

/** The engine's document of a version-3 one: the `default` source at the top, the others in `sources`; anything else unchanged. */
export function metadataFromV3(md: unknown, path = '$.args'): unknown {
  if (!isObject(md) || md.version !== 3) return md;
  const { version: _v, sources, ...rest } = md;
  const list = Array.isArray(sources) ? (sources as J[]) : [];
  const src = list.find((s) => isObject(s) && s.name === 'default') ?? {};
  const others = list.filter((s) => !(isObject(s) && s.name === 'default'));
  const out: J = { version: 2, tables: src.tables ?? [] };
  if (Array.isArray(src.functions) && src.functions.length > 0) out.functions = src.functions;
  if (Array.isArray(src.logical_models) && src.logical_models.length > 0) out.logical_models = src.logical_models;
  if (Array.isArray(src.native_queries) && src.native_queries.length > 0) out.native_queries = src.native_queries;
  if (src.customization !== undefined && src.customization !== null) out.source_customization = src.customization;
  const replicas = isObject(src.configuration) ? src.configuration.read_replicas : undefined;
  if (others.length > 0) out.sources = others;
  void path;
  return { ...out, ...rest, ...(replicas === undefined ? {} : { read_replicas: replicas }) };
}

/** The version-3 document of this engine's (version 2) export: `default` first, then the other sources. */
export function metadataToV3(md: J): J {
  const { version: _v, tables, functions, source_customization: customization, read_replicas: replicas, logical_models: models, native_queries: nqs, sources, ...rest } = md;
  const source: J = { name: 'default', kind: 'postgres', tables: tables ?? [] };
  if (Array.isArray(functions) && functions.length > 0) source.functions = functions;
  if (Array.isArray(models) && models.length > 0) source.logical_models = models;
  if (Array.isArray(nqs) && nqs.length > 0) source.native_queries = nqs;
  source.configuration = { connection_info: { database_url: { from_env: 'SVC_GRAPHQL_DATABASE_URL' }, isolation_level: 'read-committed', use_prepared_statements: false } };
  if (Array.isArray(replicas) && replicas.length > 0) source.configuration.read_replicas = replicas;
  if (customization !== undefined) source.customization = customization;
  return { version: 3, sources: [source, ...(Array.isArray(sources) ? sources : [])], ...rest };
}

/** Rewrites a /v1/metadata body into a /v1/query body. */
/**
 * Hasura v2 commands whose permissions would narrow what a role may reach, which the engine does not
 * have (docs/roles.md): refused by name rather than as unknown commands.
 */
const NOT_SUPPORTED_COMMANDS: Readonly<Record<string, string>> = {
};

export function translateV2Metadata(body: unknown, path = '$'): unknown {
  if (!isObject(body) || typeof body.type !== 'string') return body; // decodeQuery reports the shape error
  const { type, args } = body;
  if (type === 'bulk') {
    return { ...body, args: Array.isArray(args) ? args.map((q, i) => translateV2Metadata(q, `${path}.args[${i}]`)) : args };
  }
  let op = type.startsWith('pg_') ? type.slice(3) : type;
  const checked = isObject(args) && !SOURCE_COMMANDS.has(type) ? checkSource(args) : undefined;
  let a: unknown = checked ? checked.rest : args;
  // Hasura's way to change an existing source's configuration (its read replicas, say).
  if (type === 'pg_add_source' && isObject(a) && a.replace_configuration === true && a.name === 'default') op = 'update_source';
  if (type.startsWith('pg_') && op === 'set_table_customization' && isObject(a)) {
    const conf = isObject(a.configuration) ? a.configuration : {};
    if (conf.custom_name !== undefined && conf.custom_name !== null) {
      throw new ApiError('not-supported', "a table's custom_name is not supported: name its root fields with custom_root_fields (the GraphQL type keeps the table's name)", { path: `${path}.args.configuration.custom_name` });
    }
    // Hasura's newer `column_config: {col: {custom_name}}` is the same as `custom_column_names: {col: name}`.
    const columns: J = { ...(isObject(conf.custom_column_names) ? conf.custom_column_names : {}) };
    if (isObject(conf.column_config)) {
      for (const [col, c] of Object.entries(conf.column_config)) {
        if (isObject(c) && typeof c.custom_name === 'string') columns[col] = c.custom_name;
        else if (isObject(c) && Object.keys(c).some((k) => k !== 'custom_name' && c[k] !== null)) {
          throw new ApiError('not-supported', `column_config of ${JSON.stringify(col)}: only custom_name is supported`, { path: `${path}.args.configuration.column_config.${col}` });
        }
      }
    }
    op = 'set_table_custom_fields';
    a = { table: a.table, custom_root_fields: conf.custom_root_fields ?? {}, custom_column_names: columns };
  }
  if (op in NOT_SUPPORTED_COMMANDS) throw new ApiError('not-supported', NOT_SUPPORTED_COMMANDS[op], { path });
  if (Object.prototype.hasOwnProperty.call(HASURA_V2_NOT_SUPPORTED, op)) throw new ApiError('not-supported', HASURA_V2_NOT_SUPPORTED[op], { path });
  const backend = OTHER_BACKEND_PREFIX.exec(type);
  if (backend) {
    throw new ApiError('not-supported', `${JSON.stringify(type)} is a command for a ${backend[1]} source: this engine serves Postgres sources only; use ${JSON.stringify(`pg_${type.slice(backend[0].length)}`)}`, { path });
  }
  if (!isOpType(op) || NOT_METADATA.has(op) || (type.startsWith('pg_') && ['export_metadata', 'replace_metadata', 'reload_metadata', 'clear_metadata'].includes(op))) {
    throw new ApiError('parse-failed', `unknown metadata command ${JSON.stringify(type)}`, { path });
  }
  if (op === 'replace_metadata' && isObject(a)) {
    a = 'metadata' in a && isObject(a.metadata) ? { ...a, metadata: metadataFromV3(a.metadata, `${path}.args.metadata`) } : metadataFromV3(a, `${path}.args`);
  }
  const out: J = { type: op, args: a ?? {} };
  // Commands on the objects of another source: the runner says whether it exists (not-exists) or is not served there.
  if (checked?.other !== undefined) out.source = checked.other;
  if (VERSION_2.has(op) && isObject(a) && ('table' in a || 'function' in a)) out.version = 2;
  // `/v1/metadata`'s own `version` (Hasura v2's export/replace versions) is not the `/v1/query` one:
  // it is passed on only to the operations that have a version 2 there.
  else if (body.version !== undefined && VERSION_2_TYPES.has(op)) out.version = body.version;
  return out;
}

/** The answer in Hasura v2's shape: export_metadata results (also inside bulk) in version 3. */
export function v2MetadataResult(translated: unknown, result: unknown): unknown {
  if (!isObject(translated)) return result;
  if (translated.type === 'export_metadata' && result instanceof ExportedMetadata) return result.map(metadataToV3);
  if (translated.type === 'export_metadata' && isObject(result)) return metadataToV3(result);
  if (translated.type === 'bulk' && Array.isArray(translated.args) && Array.isArray(result)) {
    return result.map((r, i) => v2MetadataResult(translated.args[i], r));
  }
  return result;
}
