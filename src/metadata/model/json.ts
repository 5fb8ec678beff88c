/**
 * Small JSON decoding functions with Hasura's (aeson's) error wording and precise paths:
 * `expected Object, encountered String`, `key "table" not found`. Every decoder takes the JSON
 * path of the value it reads and throws a `parse-failed` ApiError pointing there.
 */
import type { UrlConf } from '../../webhooks/index.js';
import { ApiError, jsonTypeName, pathKey } from '../../core/index.js';

export type JsonObject = Record<string, unknown>;

export { jsonTypeName };

export const parseError = (message: string, path: string): ApiError => new ApiError('parse-failed', message, { path });

export const typeMismatch = (expected: string, v: unknown, path: string): ApiError =>
  parseError(`expected ${expected}, encountered ${jsonTypeName(v)}`, path);

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function asObject(v: unknown, path: string): JsonObject {
  if (!isObject(v)) throw typeMismatch('Object', v, path);
  return v;
}

export function asArray(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw typeMismatch('Array', v, path);
  return v;
}

export function asString(v: unknown, path: string): string {
  if (typeof v !== 'string') throw typeMismatch('String', v, path);
  return v;
}

export function asBool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') throw typeMismatch('Boolean', v, path);
  return v;
}

export function asInt(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw typeMismatch('Int', v, path);
  return v;
}

export function asStringArray(v: unknown, path: string): string[] {
  return asArray(v, path).map((x, i) => asString(x, pathKey(path, i)));
}

/** A required key (aeson `.:`): missing → `key "k" not found` at the object's path. */
export function required<T>(o: JsonObject, key: string, path: string, decode: (v: unknown, path: string) => T): T {
  if (!(key in o)) throw parseError(`key "${key}" not found`, path);
  return decode(o[key], pathKey(path, key));
}

/** An optional key (aeson `.:?`): absent or null → undefined. */
export function optional<T>(o: JsonObject, key: string, path: string, decode: (v: unknown, path: string) => T): T | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  return decode(v, pathKey(path, key));
}

/** Decodes every element of an array, each at its indexed path. */
export function arrayOf<T>(decode: (v: unknown, path: string) => T): (v: unknown, path: string) => T[] {
  return (v, path) => asArray(v, path).map((x, i) => decode(x, pathKey(path, i)));
}

/** Fails when the object has keys outside `allowed` (Hasura does this for some metadata objects). */
export function rejectUnknownKeys(o: JsonObject, allowed: readonly string[], what: string, path: string): void {
  const extra = Object.keys(o).filter((k) => !allowed.includes(k));
  if (extra.length > 0) throw parseError(`unexpected keys when parsing ${what} : [${extra.map((k) => JSON.stringify(k)).join(',')}]`, path);
}

/** Deep copy of a JSON value (metadata documents are plain JSON). */
export const cloneJson = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** Hasura's `UrlConf` (a URL field): a URL string (maybe with `{{VAR}}` parts) or `{"from_env": "VAR"}`. */
export function asUrlConf(v: unknown, path: string): UrlConf {
  if (isObject(v)) return { from_env: required(v, 'from_env', path, asString) };
  if (typeof v === 'string') return v;
  throw parseError('one of string or object must be provided for url/webhook', path);
}
