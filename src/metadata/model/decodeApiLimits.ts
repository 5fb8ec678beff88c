/**
 * `api_limits` (Hasura v2's metadata shape): `{disabled?, depth_limit?, node_limit?,
 * batch_limit?}`, each limit `{global?, per_role?: {role: n}}` with non-negative integers. Hasura's
 * `time_limit` and `rate_limit` are refused as not-supported with a clear message rather than
 * stored and ignored. Used by `set_api_limits` and by `replace_metadata` / the catalog decoder.
 */
import { ApiError, pathKey } from '../../core/index.js';
import type { ApiLimit, ApiLimits } from './metadata.js';
import { asBool, asObject, optional, parseError, rejectUnknownKeys } from './json.js';

const LIMIT_KEYS = ['depth_limit', 'node_limit', 'batch_limit'] as const;
const UNSUPPORTED = ['time_limit', 'rate_limit'] as const;

function asLimitValue(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw parseError(`expected a non-negative integer, encountered ${JSON.stringify(v)}`, path);
  }
  return v;
}

function decodeLimit(v: unknown, path: string): ApiLimit {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['global', 'per_role'], 'an api limit', path);
  const out: ApiLimit = {};
  const global = optional(o, 'global', path, asLimitValue);
  if (global !== undefined) out.global = global;
  const perRole = optional(o, 'per_role', path, asObject);
  if (perRole) {
    const p = pathKey(path, 'per_role');
    out.per_role = {};
    for (const [role, n] of Object.entries(perRole)) {
      if (role === '') throw parseError('a role name cannot be empty', p);
      Object.defineProperty(out.per_role, role, { value: asLimitValue(n, pathKey(p, role)), enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

/** Decodes `api_limits` / the args of `set_api_limits`. */
export function decodeApiLimits(v: unknown, path: string): ApiLimits {
  const o = asObject(v, path);
  for (const key of UNSUPPORTED) {
    if (o[key] !== undefined && o[key] !== null) {
      throw new ApiError('not-supported', `${key} is not supported by this engine (supported: ${LIMIT_KEYS.join(', ')})`, { path: pathKey(path, key) });
    }
  }
  rejectUnknownKeys(o, ['disabled', ...LIMIT_KEYS, ...UNSUPPORTED], 'api limits', path);
  const out: ApiLimits = {};
  const disabled = optional(o, 'disabled', path, asBool);
  if (disabled !== undefined) out.disabled = disabled;
  for (const key of LIMIT_KEYS) {
    const l = optional(o, key, path, decodeLimit);
    if (l) out[key] = l;
  }
  return out;
}

/** `api_limits` as exported: keys in Hasura's order, absent parts left out; undefined when empty. */
export function encodeApiLimits(l: ApiLimits | undefined): Record<string, unknown> | undefined {
  if (!l) return undefined;
  const o: Record<string, unknown> = {};
  if (l.disabled !== undefined) o.disabled = l.disabled;
  for (const key of LIMIT_KEYS) {
    const x = l[key];
    if (!x) continue;
    const e: Record<string, unknown> = {};
    if (x.global !== undefined) e.global = x.global;
    if (x.per_role && Object.keys(x.per_role).length > 0) e.per_role = { ...x.per_role };
    o[key] = e;
  }
  return Object.keys(o).length > 0 ? o : undefined;
}
