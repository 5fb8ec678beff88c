/**
 * Value parsers for flags and SVC_GRAPHQL_* variables. Each takes the raw text and returns the
 * typed value or throws a ConfigError whose message starts with the option's name.
 */
import { availableParallelism } from 'node:os';
import { ConfigError } from './configError.js';
import type { EnabledApi, JwtSecretConfig } from './serverConfig.js';

export type Parser<T> = (raw: string, name: string) => T;

const show = (raw: string): string => JSON.stringify(raw.length > 80 ? raw.slice(0, 77) + '...' : raw);

export const str: Parser<string> = (raw, name) => {
  if (raw === '') throw new ConfigError(`${name}: expected a non-empty value`);
  return raw;
};

/** A secret: never echoed back in messages. */
export const secret: Parser<string> = (raw, name) => {
  if (raw === '') throw new ConfigError(`${name}: expected a non-empty value`);
  return raw;
};

export const int =
  (min: number, max: number): Parser<number> =>
  (raw, name) => {
    const n = /^[+-]?\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer between ${min} and ${max}`;
      throw new ConfigError(`${name}: expected ${range}, got ${show(raw)}`);
    }
    return n;
  };

/** A process count: a positive integer, or `auto` for the cores this process may use (os.availableParallelism). */
export const workers: Parser<number> = (raw, name) => {
  if (raw.trim().toLowerCase() === 'auto') return availableParallelism();
  try {
    return int(1, 1024)(raw, name);
  } catch {
    throw new ConfigError(`${name}: expected 'auto' or an integer between 1 and 1024, got ${show(raw)}`);
  }
};

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export const bool: Parser<boolean> = (raw, name) => {
  const v = raw.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new ConfigError(`${name}: expected a boolean (true/false/1/0/yes/no), got ${show(raw)}`);
};

/** `auto`, or a boolean literal as `true` / `false` (a switch whose default is decided at start). */
export const autoBool: Parser<'auto' | 'true' | 'false'> = (raw, name) => {
  if (raw.trim().toLowerCase() === 'auto') return 'auto';
  try {
    return bool(raw, name) ? 'true' : 'false';
  } catch {
    throw new ConfigError(`${name}: expected auto or a boolean (true/false/1/0/yes/no), got ${show(raw)}`);
  }
};

export const isBoolLiteral = (raw: string): boolean => TRUE.has(raw.toLowerCase()) || FALSE.has(raw.toLowerCase());

export const oneOf =
  <T extends string>(values: readonly T[], opts: { caseInsensitive?: boolean; upper?: boolean } = {}): Parser<T> =>
  (raw, name) => {
    const v = opts.upper ? raw.trim().toUpperCase() : opts.caseInsensitive ? raw.trim().toLowerCase() : raw.trim();
    if ((values as readonly string[]).includes(v)) return v as T;
    throw new ConfigError(`${name}: expected one of ${values.join(', ')}, got ${show(raw)}`);
  };

export const httpUrl: Parser<string> = (raw, name) => {
  let u: URL | undefined;
  try {
    u = new URL(raw.trim());
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw new ConfigError(`${name}: expected an http(s) URL, got ${show(raw)}`);
  return raw.trim();
};

/** A URL of one of `schemes`; the value may carry a password, so an error shows only its first `shown` characters. */
const schemeUrl = (schemes: readonly string[], what: string, shown: number): Parser<string> => (raw, name) => {
  const v = raw.trim();
  let ok = false;
  try {
    ok = schemes.includes(new URL(v).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw new ConfigError(`${name}: expected ${what}, got a value starting with ${show(v.slice(0, shown))}`);
  return v;
};

export const redisUrl: Parser<string> = schemeUrl(['redis:', 'rediss:'], 'a redis:// or rediss:// URL', 8);

export const postgresUrl: Parser<string> = schemeUrl(['postgres:', 'postgresql:'], 'a postgres:// or postgresql:// URL', 11);

/** A comma list of postgres:// URLs (read replicas); an item that does not parse is named by its position. */
export const postgresUrlList: Parser<string[]> = (raw, name) => {
  const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new ConfigError(`${name}: expected a comma-separated list of postgres:// URLs`);
  return items.map((item, i) => postgresUrl(item, `${name} (URL ${i + 1} of ${items.length})`));
};

/** Seconds as a decimal number (e.g. `5` or `0.5`) → milliseconds. */
export const secondsAsMs =
  (min: number, max: number): Parser<number> =>
  (raw, name) => {
    const n = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
    if (!Number.isFinite(n) || n < min || n > max) throw new ConfigError(`${name}: expected a number of seconds between ${min} and ${max}, got ${show(raw)}`);
    return Math.round(n * 1000);
  };

export const ENABLED_APIS: readonly EnabledApi[] = ['graphql', 'metadata', 'config', 'pgdump', 'developer'];

export const enabledApis: Parser<ReadonlySet<EnabledApi>> = (raw, name) => {
  const items = raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const item of items) {
    if (!(ENABLED_APIS as readonly string[]).includes(item)) {
      throw new ConfigError(`${name}: unknown API ${show(item)}; expected a comma-separated list of ${ENABLED_APIS.join(', ')}`);
    }
  }
  return new Set(items as EnabledApi[]);
};

const CORS_ENTRY = /^https?:\/\/[^\s,/]+$/;

export const corsDomain: Parser<string[] | '*'> = (raw, name) => {
  const v = raw.trim();
  if (v === '*') return '*';
  const items = v.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new ConfigError(`${name}: expected "*" or a comma-separated list of origins, got ${show(raw)}`);
  for (const item of items) {
    if (!CORS_ENTRY.test(item)) {
      throw new ConfigError(`${name}: expected origins like https://app.example.com, https://*.example.com or http://localhost:*, got ${show(item)}`);
    }
  }
  return items;
};

/** A non-empty JSON list of JWT configuration objects (`--jwt-secrets`). */
export const jwtSecrets: Parser<JwtSecretConfig[]> = (raw, name) => {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(`${name}: expected a JSON list of objects (${(err as Error).message})`);
  }
  if (!Array.isArray(v) || v.length === 0) throw new ConfigError(`${name}: expected a non-empty JSON list of objects like [{"type":"HS256","key":"..."}]`);
  v.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new ConfigError(`${name}: item ${i} is not a JSON object`);
  });
  return v as JwtSecretConfig[];
};

export const jwtSecret: Parser<JwtSecretConfig> = (raw, name) => {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(`${name}: expected a JSON object (${(err as Error).message})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${name}: expected a JSON object`);
  return v as JwtSecretConfig;
};
