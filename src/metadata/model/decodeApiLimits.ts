/**
 * `api_limits` (Hasura v2's metadata shape, `ApiLimit.hs`): `{disabled?, rate_limit?, depth_limit?,
 * node_limit?, time_limit?, batch_limit?}`. Depth, node and batch limits are `{global?, per_role?:
 * {role: n}}` with non-negative integers; `time_limit` the same in seconds (fractions allowed);
 * `rate_limit` `{global?, per_role?}` of `{max_reqs_per_min, unique_params?}` where `unique_params` is
 * `"IP"` or a list of session variables (`x-hasura-*` / `x-svc-*`, not the role). Every kind is
 * stored and exported; which are applied is the engine's choice (graphql/request/operationLimits.ts:
 * depth, node and batch; time and rate limits are stored only, as Hasura's open-source edition
 * applies none). Used by `set_api_limits` and by `replace_metadata` / the catalog decoder.
 */
import { pathKey } from '../../core/index.js';
import type { ApiLimit, ApiLimits, RateLimit, RateLimitConfig } from './metadata.js';
import { asBool, asObject, optional, parseError, rejectUnknownKeys } from './json.js';

/** The limit kinds with a number per role, in Hasura's export order (rate_limit comes first). */
const NUMBER_KEYS = ['depth_limit', 'node_limit', 'time_limit', 'batch_limit'] as const;
/** Every key, in Hasura's order. */
export const API_LIMIT_KINDS = ['rate_limit', 'depth_limit', 'node_limit', 'time_limit', 'batch_limit'] as const;

function asLimitValue(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw parseError(`expected a non-negative integer, encountered ${JSON.stringify(v)}`, path);
  }
  return v;
}

function asSeconds(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw parseError(`expected a non-negative number of seconds, encountered ${JSON.stringify(v)}`, path);
  }
  return v;
}

const UNIQUE_PARAMS_ERROR = "Not a valid value. Should be either: 'IP' or a list of Hasura session variables";

function asRateLimitConfig(v: unknown, path: string): RateLimitConfig {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['max_reqs_per_min', 'unique_params'], 'a rate limit', path);
  if (!('max_reqs_per_min' in o)) throw parseError('key "max_reqs_per_min" not found', path);
  const out: RateLimitConfig = { max_reqs_per_min: asLimitValue(o.max_reqs_per_min, pathKey(path, 'max_reqs_per_min')) };
  const u = o.unique_params;
  const up = pathKey(path, 'unique_params');
  if (u === undefined) return out;
  if (u === null) out.unique_params = null;
  else if (typeof u === 'string') {
    if (u.toLowerCase() !== 'ip') throw parseError(UNIQUE_PARAMS_ERROR, up);
    out.unique_params = 'IP';
  } else if (Array.isArray(u)) {
    for (const s of u) {
      if (typeof s !== 'string' || !/^x-(hasura|svc)-/i.test(s) || /^x-(hasura|svc)-role$/i.test(s)) throw parseError(UNIQUE_PARAMS_ERROR, up);
    }
    out.unique_params = [...(u as string[])];
  } else throw parseError(UNIQUE_PARAMS_ERROR, up);
  return out;
}

function decodeLimit<T>(v: unknown, path: string, value: (v: unknown, path: string) => T): { global?: T; per_role?: Record<string, T> } {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['global', 'per_role'], 'an api limit', path);
  const out: { global?: T; per_role?: Record<string, T> } = {};
  const global = optional(o, 'global', path, value);
  if (global !== undefined) out.global = global;
  const perRole = optional(o, 'per_role', path, asObject);
  if (perRole) {
    const p = pathKey(path, 'per_role');
    out.per_role = {};
    for (const [role, n] of Object.entries(perRole)) {
      if (role === '') throw parseError('a role name cannot be empty', p);
      Object.defineProperty(out.per_role, role, { value: value(n, pathKey(p, role)), enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

/** Decodes `api_limits` / the args of `set_api_limits`. */
export function decodeApiLimits(v: unknown, path: string): ApiLimits {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['disabled', ...API_LIMIT_KINDS], 'api limits', path);
  const out: ApiLimits = {};
  const disabled = optional(o, 'disabled', path, asBool);
  if (disabled !== undefined) out.disabled = disabled;
  const rate = optional(o, 'rate_limit', path, (x, p): RateLimit => decodeLimit(x, p, asRateLimitConfig));
  if (rate) out.rate_limit = rate;
  for (const key of NUMBER_KEYS) {
    const l = optional(o, key, path, (x, p): ApiLimit => decodeLimit(x, p, key === 'time_limit' ? asSeconds : asLimitValue));
    if (l) out[key] = l;
  }
  return out;
}

function encodeLimit<T>(x: { global?: T; per_role?: Record<string, T> }, copy: (v: T) => T): Record<string, unknown> {
  const e: Record<string, unknown> = {};
  if (x.global !== undefined) e.global = copy(x.global);
  if (x.per_role) e.per_role = Object.fromEntries(Object.entries(x.per_role).map(([r, v]) => [r, copy(v)]));
  return e;
}

const copyRate = (c: RateLimitConfig): RateLimitConfig => {
  const o: RateLimitConfig = { max_reqs_per_min: c.max_reqs_per_min };
  if (c.unique_params !== undefined) o.unique_params = Array.isArray(c.unique_params) ? [...c.unique_params] : c.unique_params;
  return o;
};

/** `api_limits` as exported: keys in Hasura's order, absent parts left out; undefined when empty. */
export function encodeApiLimits(l: ApiLimits | undefined): Record<string, unknown> | undefined {
  if (!l) return undefined;
  const o: Record<string, unknown> = {};
  if (l.disabled !== undefined) o.disabled = l.disabled;
  if (l.rate_limit) o.rate_limit = encodeLimit(l.rate_limit, copyRate);
  for (const key of NUMBER_KEYS) {
    const x = l[key];
    if (x) o[key] = encodeLimit(x, (n) => n);
  }
  return Object.keys(o).length > 0 ? o : undefined;
}

/** One line per stored limit, for the start-up report: `depth_limit: global 2, per_role user 3`. */
export function describeApiLimits(l: ApiLimits | undefined): string[] {
  if (!l) return [];
  const show = (v: number | RateLimitConfig): string =>
    typeof v === 'number' ? String(v) : `${v.max_reqs_per_min}/min${v.unique_params ? ` per ${Array.isArray(v.unique_params) ? v.unique_params.join('+') : v.unique_params}` : ''}`;
  const out: string[] = [];
  for (const key of API_LIMIT_KINDS) {
    const x = l[key] as { global?: number | RateLimitConfig; per_role?: Record<string, number | RateLimitConfig> } | undefined;
    if (!x) continue;
    const parts: string[] = [];
    if (x.global !== undefined) parts.push(`global ${show(x.global)}`);
    for (const [r, v] of Object.entries(x.per_role ?? {})) parts.push(`${r} ${show(v)}`);
    out.push(`${key}${key === 'time_limit' ? ' (s)' : ''}: ${parts.join(', ') || 'none'}`);
  }
  return out;
}
