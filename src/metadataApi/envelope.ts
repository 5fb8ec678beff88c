/**
 * Decodes the `/v1/query` body `{type, args, version?}` (recursively for `bulk`) into a tree of
 * operations with decoded arguments, before anything runs — as Hasura decodes the whole request
 * first. Error paths follow aeson's tagged decoding: `$` for the envelope, then paths inside
 * `args` without an `args` prefix (`$.table`), bulk items as `$[1]…`.
 */
import { ApiError, pathKey } from '../core/index.js';
import { asArray, asInt, isObject, jsonTypeName, mapHasuraBrand } from '../metadata/index.js';
import { OPERATIONS, isOpType } from './operations.js';
import type { OpType } from './operations.js';

/** The operations that have a version 2 (the spec's three, and Hasura v2's replace_metadata). */
export const VERSION_2_TYPES: ReadonlySet<string> = new Set(['track_table', 'set_table_custom_fields', 'track_function', 'replace_metadata']);

export type Query =
  | { type: 'bulk'; items: Query[] }
  /** `source`: a `/v1/metadata` command named another source than `default` (runQuery.ts answers for it). */
  | { type: OpType; args: unknown; version: number; source?: string };

/**
 * Operations whose arguments name session variables (permission rules and presets, a whole metadata
 * document): under `--hasura-compat` their `x-hasura-*` names are read as the engine's `x-svc-*`, as
 * `metadata apply` and adoption map them.
 */
const HASURA_NAMED_OPS: ReadonlySet<string> = new Set([
  'create_insert_permission', 'create_select_permission', 'create_update_permission', 'create_delete_permission', 'replace_metadata',
]);

export interface DecodeOptions {
  /** `--hasura-compat`: session-variable names in Hasura's spelling mean the engine's (see `HASURA_NAMED_OPS`). */
  hasuraNames?: boolean;
}

/** Decodes one query object found at `path`. */
export function decodeQuery(body: unknown, path = '$', opts: DecodeOptions = {}): Query {
  if (!isObject(body)) throw new ApiError('parse-failed', `expected Object, encountered ${jsonTypeName(body)}`, { path });
  if (!('type' in body)) throw new ApiError('parse-failed', 'key "type" not found', { path });
  const type = body.type;
  if (typeof type !== 'string') throw new ApiError('parse-failed', `expected String, encountered ${jsonTypeName(type)}`, { path: pathKey(path, 'type') });
  const version = body.version === undefined || body.version === null ? 1 : asInt(body.version, pathKey(path, 'version'));
  if (version !== 1 && version !== 2) throw new ApiError('parse-failed', `unsupported version: ${version}`, { path: pathKey(path, 'version') });
  if (!('args' in body)) throw new ApiError('parse-failed', 'key "args" not found', { path });
  if (type === 'bulk') {
    const items = asArray(body.args, path).map((q, i) => decodeQuery(q, pathKey(path, i), opts));
    return { type: 'bulk', items };
  }
  // Version 2 is its own set of operations (Hasura's RQLQueryV2): any other type is unknown to it.
  if (!isOpType(type) || (version === 2 && !VERSION_2_TYPES.has(type))) {
    throw new ApiError('parse-failed', `unknown query type: ${JSON.stringify(type)}`, { path });
  }
  const handler = OPERATIONS[type];
  const raw = opts.hasuraNames === true && HASURA_NAMED_OPS.has(type) ? mapHasuraBrand(body.args).value : body.args;
  const args = handler.decode(raw, path, version);
  return typeof body.source === 'string' ? { type, args, version, source: body.source } : { type, args, version };
}

/** True when some operation of the tree changes metadata or the schema. */
export function mutates(q: Query): boolean {
  return q.type === 'bulk' ? q.items.some(mutates) : OPERATIONS[q.type].mutates;
}

/** A transaction's access mode, named as Hasura prints it in errors. */
export type TxAccess = 'ReadWrite' | 'ReadOnly';

/**
 * The access mode a request's transaction runs in (Hasura's getQueryAccessMode): `run_sql` asks
 * for ReadOnly with `read_only: true`, `select`/`count` accept either, every other operation needs
 * ReadWrite; a `bulk` must agree on one (400 bad-request otherwise); no requirement → ReadOnly.
 */
export function accessMode(q: Query): TxAccess {
  return accessModeOf(q) ?? 'ReadOnly';
}

function accessModeOf(q: Query): TxAccess | undefined {
  if (q.type === 'bulk') {
    let expected: TxAccess | undefined;
    q.items.forEach((item, i) => {
      const mode = accessModeOf(item);
      if (mode === undefined || mode === expected) return;
      if (expected === undefined) expected = mode;
      else {
        throw new ApiError('bad-request', `incompatible access mode requirements in bulk query, expected access mode: ${expected} but $.args[${i}] forces ${mode}`);
      }
    });
    return expected;
  }
  if (q.version === 2) return 'ReadWrite';
  if (q.type === 'select' || q.type === 'count') return undefined;
  if (q.type === 'run_sql') return (q.args as { readOnly?: boolean }).readOnly ? 'ReadOnly' : 'ReadWrite';
  return 'ReadWrite';
}
