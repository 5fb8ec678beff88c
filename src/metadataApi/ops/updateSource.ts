/**
 * `update_source` (Hasura v2's `pg_update_source` on /v1/metadata, and `pg_add_source` with
 * `replace_configuration: true` for `default`). A source beside `default` takes a new `configuration`
 * (connection, pool settings...; its database read again: an unreachable one is refused) and
 * `customization`; an unknown name is `not-exists`. For `default`: `customization` replaces the stored one whole (`{}` goes back to the server's
 * default naming convention); absent, it is left as it is. Of `configuration`, `read_replicas`
 * replaces the stored list (absent or `[]`: none), applied at once by every engine; its
 * `connection_info` must be the engine's own connection as export_metadata gives it
 * (`{from_env: "SVC_GRAPHQL_DATABASE_URL"}`, the database of `--database-url`): another is refused,
 * not ignored. The new names hold from the next request on (the schema cache is rebuilt).
 */
import { ApiError, pathKey } from '../../core/index.js';
import {
  asObject, decodeReadReplicas, decodeSourceConfiguration, decodeSourceCustomization, encodeSourceCustomization, findSource,
  type ReadReplicaMetadata, type SourceCustomization, type SourceMetadata,
} from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';

interface UpdateSourceArgs {
  /** A source beside `default`: its name and new configuration (absent: unchanged). */
  other?: { name: string; configuration?: SourceMetadata['configuration'] };
  customization?: SourceCustomization;
  /** Set when a `configuration` was given: the new list (empty: none). */
  readReplicas?: ReadReplicaMetadata[];
}

const CONFIGURATION_KEYS = ['connection_info', 'read_replicas'];

function decodeConfiguration(v: unknown, path: string): ReadReplicaMetadata[] {
  const o = asObject(v, path);
  for (const k of Object.keys(o)) {
    if (!CONFIGURATION_KEYS.includes(k)) throw new ApiError('not-supported', `"${k}" of a source's configuration is not supported: only read_replicas can be changed`, { path: pathKey(path, k) });
  }
  const info = o.connection_info;
  if (info !== undefined && info !== null) {
    const url = asObject(info, pathKey(path, 'connection_info')).database_url;
    const own = typeof url === 'object' && url !== null && (url as { from_env?: unknown }).from_env === 'SVC_GRAPHQL_DATABASE_URL';
    if (!own) {
      throw new ApiError('not-supported', "the source's connection is the engine's own (--database-url): connection_info.database_url must be {\"from_env\": \"SVC_GRAPHQL_DATABASE_URL\"}", { path: pathKey(pathKey(path, 'connection_info'), 'database_url') });
    }
  }
  return o.read_replicas === undefined ? [] : decodeReadReplicas(o.read_replicas, pathKey(path, 'read_replicas'));
}

function decodeUpdateSource(args: unknown, path: string): UpdateSourceArgs {
  const o = asObject(args, path);
  for (const k of Object.keys(o)) {
    if (!['name', 'customization', 'configuration', 'replace_configuration', 'kind'].includes(k)) {
      throw new ApiError('parse-failed', `unexpected key ${JSON.stringify(k)} in update_source`, { path: `${path}.${k}` });
    }
  }
  if (typeof o.name !== 'string') throw new ApiError('parse-failed', 'the key "name" was not present', { path });
  if (o.name !== 'default') {
    const other: UpdateSourceArgs = { other: { name: o.name } };
    if (o.configuration !== undefined && o.configuration !== null) other.other!.configuration = decodeSourceConfiguration(o.configuration, `${path}.configuration`);
    if (o.customization !== undefined && o.customization !== null) other.customization = decodeSourceCustomization(o.customization, `${path}.customization`);
    return other;
  }
  const out: UpdateSourceArgs = {};
  if (o.configuration !== undefined && o.configuration !== null) out.readReplicas = decodeConfiguration(o.configuration, `${path}.configuration`);
  if (o.customization !== undefined && o.customization !== null) out.customization = decodeSourceCustomization(o.customization, `${path}.customization`);
  if (out.customization?.root_fields) {
    throw new ApiError('not-supported', 'the root fields prefix and suffix are not supported for the "default" source, only for the other sources', { path: `${path}.customization.root_fields` });
  }
  if (out.customization?.type_names) {
    throw new ApiError('not-supported', 'the type names prefix and suffix are not supported for the "default" source, only for the other sources', { path: `${path}.customization.type_names` });
  }
  return out;
}

export const update_source = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeUpdateSource(args, path),
  async run(ctx, args) {
    if (args.other) {
      const md = await ctx.work.draft();
      const source = findSource(md, args.other.name);
      if (!source) throw new ApiError('not-exists', `source with name ${JSON.stringify(args.other.name)} does not exist`, { path: ctx.path });
      if (args.other.configuration) source.configuration = args.other.configuration;
      if (args.customization) {
        const customization = encodeSourceCustomization(args.customization);
        if (customization) source.customization = customization;
        else delete source.customization;
      }
      await ctx.work.change(md, { kind: 'source', name: source.name });
      return SUCCESS;
    }
    if (!args.customization && !args.readReplicas) return SUCCESS;
    const md = await ctx.work.draft();
    if (args.customization) {
      const customization = encodeSourceCustomization(args.customization);
      if (customization) md.source_customization = customization;
      else delete md.source_customization;
    }
    if (args.readReplicas) {
      if (args.readReplicas.length > 0) md.read_replicas = args.readReplicas;
      else delete md.read_replicas;
    }
    await ctx.work.change(md);
    return SUCCESS;
  },
});
