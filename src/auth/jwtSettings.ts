/**
 * Validates the `--jwt-secret` / `SVC_GRAPHQL_JWT_SECRET` object (SPEC "Server setting: JWT
 * secret") into `JwtSettings`. Every problem is a one-line `AuthConfigError` so the engine refuses
 * to start with a message that names the setting and what is wrong with it.
 */
import type { KeyObject } from 'node:crypto';
import { HASURA_PREFIX, svcSessionName } from '../core/index.js';
import { encodeJsonPath, parseJsonPath } from './jsonPath.js';
import type { JsonPathStep } from './jsonPath.js';
import { hmacKey, isHmacAlg, isJwtAlg, rsaPublicKeyFromPem } from './jwtKeys.js';
import type { JwtAlg } from './jwtKeys.js';

export const DEFAULT_CLAIMS_NAMESPACE = 'https://svc.io/jwt/claims';
/** Hasura's default namespace, read beside the engine's under `--hasura-compat`. */
export const HASURA_CLAIMS_NAMESPACE = 'https://hasura.io/jwt/claims';
export const ALLOWED_ROLES_CLAIM = 'x-svc-allowed-roles';
export const DEFAULT_ROLE_CLAIM = 'x-svc-default-role';

/** A startup configuration problem; `message` is the one line printed before exiting. */
export class AuthConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthConfigError';
  }
}

export type ClaimsFormat = 'json' | 'stringified_json';

/** One `claims_map` entry: a literal value, or a JSON path into the token with an optional default. */
export type ClaimsMapValue = { kind: 'literal'; value: string | string[] } | { kind: 'path'; path: JsonPathStep[]; pathText: string; default?: string | string[] };

export type ClaimsLocation =
  /** `alsoNamespace`: with no namespace configured, under `--hasura-compat`, Hasura's namespace is read too. */
  | { kind: 'namespace'; namespace: string; format: ClaimsFormat; alsoNamespace?: string }
  | { kind: 'path'; path: JsonPathStep[]; pathText: string; format: ClaimsFormat }
  | { kind: 'map'; map: Map<string, ClaimsMapValue> };

export type KeySource = { kind: 'static'; alg: JwtAlg; key: KeyObject } | { kind: 'jwks'; url: string };

export interface JwtSettings {
  keySource: KeySource;
  audience?: string[];
  issuer?: string;
  claims: ClaimsLocation;
  /** Clock leeway in seconds for exp / nbf / iat. */
  leewaySeconds: number;
  /** What the config API reports. */
  info: { claims_namespace: string; claims_format: ClaimsFormat; claims_map?: unknown };
  /** `--hasura-compat`: claims (and claims_map keys) may be written `x-hasura-*`. */
  hasuraCompat: boolean;
}

const KNOWN_KEYS = new Set(['type', 'key', 'jwk_url', 'claims_namespace', 'claims_namespace_path', 'claims_format', 'audience', 'issuer', 'claims_map', 'allowed_skew']);

/**
 * Parses the raw setting (already-parsed JSON, or its text). `defaultLeeway` comes from the
 * server config; an `allowed_skew` key in the object (Hasura v2 spelling) overrides it. With
 * `hasuraCompat`, `claims_map` keys may be written `x-hasura-*` and, with no namespace configured, the
 * claims are read under Hasura's namespace too.
 */
export function parseJwtSettings(
  raw: unknown, defaultLeeway: number, warn: (msg: string) => void = () => {}, source = '--jwt-secret (SVC_GRAPHQL_JWT_SECRET)', hasuraCompat = false,
): JwtSettings {
  const fail = (msg: string): never => {
    throw new AuthConfigError(`Fatal Error: ${source}: ${msg}`);
  };
  let o = raw;
  if (typeof o === 'string') {
    try {
      o = JSON.parse(o);
    } catch (e) {
      fail(`not valid JSON: ${(e as Error).message}`);
    }
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return fail('expected a JSON object like {"type":"HS256","key":"<at least 32 characters>"}');
  const c = o as Record<string, unknown>;
  for (const k of Object.keys(c)) if (!KNOWN_KEYS.has(k)) warn(`${source.split(' ')[0]}: unknown key "${k}" is ignored`);

  const str = (k: string): string | undefined => {
    const v = c[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') return fail(`"${k}" must be a string`);
    return v;
  };

  // Key material.
  const key = str('key');
  const jwkUrl = str('jwk_url');
  const type = str('type');
  let keySource: KeySource;
  if (key === undefined && jwkUrl === undefined) return fail('key and jwk_url both cannot be empty; give {"type", "key"} or "jwk_url"');
  if (key !== undefined && jwkUrl !== undefined) return fail('key, jwk_url both cannot be present');
  if (key !== undefined) {
    if (type === undefined) return fail('"type" is required with "key" (HS256, HS384, HS512, RS256, RS384 or RS512)');
    if (!isJwtAlg(type)) {
      const hint = /^(ES|PS|Ed)/i.test(type) ? ' (EC, RSA-PSS and EdDSA keys are not supported)' : '';
      return fail(`Invalid JWK: Key type: ${type} is not supported; use HS256, HS384, HS512, RS256, RS384 or RS512${hint}`);
    }
    try {
      keySource = { kind: 'static', alg: type, key: isHmacAlg(type) ? hmacKey(type, key) : rsaPublicKeyFromPem(key) };
    } catch (e) {
      return fail(`${(e as Error).message}`);
    }
  } else {
    let url: URL;
    try {
      url = new URL(jwkUrl!);
    } catch {
      return fail(`jwk_url is not a valid URL: ${jwkUrl}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(`jwk_url must be an http(s) URL: ${jwkUrl}`);
    if (type !== undefined) warn('--jwt-secret: "type" is ignored with "jwk_url" (the algorithm comes from each JWK)');
    keySource = { kind: 'jwks', url: url.toString() };
  }

  // Audience / issuer.
  let audience: string[] | undefined;
  const aud = c.audience;
  if (aud !== undefined && aud !== null) {
    if (typeof aud === 'string') audience = [aud];
    else if (Array.isArray(aud) && aud.every((a) => typeof a === 'string')) audience = aud as string[];
    else return fail('"audience" must be a string or a list of strings');
  }
  const issuer = str('issuer');

  // Claims location.
  const format = str('claims_format') ?? 'json';
  if (format !== 'json' && format !== 'stringified_json') return fail(`claims_format must be "json" or "stringified_json", not "${format}"`);
  const ns = str('claims_namespace');
  const nsPath = str('claims_namespace_path');
  if (ns !== undefined && nsPath !== undefined) return fail('claims_namespace and claims_namespace_path both cannot be set');
  let claims: ClaimsLocation;
  let info: JwtSettings['info'];
  if (c.claims_map !== undefined && c.claims_map !== null) {
    if (ns !== undefined || nsPath !== undefined) warn('--jwt-secret: claims_map is set, so claims_namespace/claims_namespace_path are ignored');
    claims = { kind: 'map', map: parseClaimsMap(c.claims_map, fail, hasuraCompat) };
    info = { claims_namespace: DEFAULT_CLAIMS_NAMESPACE, claims_format: format, claims_map: c.claims_map };
  } else if (nsPath !== undefined) {
    const path = parsePath(nsPath, 'claims_namespace_path', fail);
    claims = { kind: 'path', path, pathText: encodeJsonPath(path), format };
    info = { claims_namespace: nsPath, claims_format: format };
  } else {
    const namespace = ns ?? DEFAULT_CLAIMS_NAMESPACE;
    claims = ns === undefined && hasuraCompat ? { kind: 'namespace', namespace, format, alsoNamespace: HASURA_CLAIMS_NAMESPACE } : { kind: 'namespace', namespace, format };
    info = { claims_namespace: namespace, claims_format: format };
  }

  // Leeway.
  let leewaySeconds = defaultLeeway;
  if (c.allowed_skew !== undefined) {
    if (typeof c.allowed_skew !== 'number' || !(c.allowed_skew >= 0)) return fail('"allowed_skew" must be a non-negative number of seconds');
    leewaySeconds = c.allowed_skew;
  }

  return { keySource, audience, issuer, claims, leewaySeconds, info, hasuraCompat };
}

function parsePath(text: string, what: string, fail: (m: string) => never): JsonPathStep[] {
  try {
    return parseJsonPath(text);
  } catch (e) {
    return fail(`invalid JSON path ${what} error: ${(e as Error).message}`);
  }
}

function parseClaimsMap(raw: unknown, fail: (m: string) => never, hasuraCompat: boolean): Map<string, ClaimsMapValue> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return fail('claims_map must be an object');
  const out = new Map<string, ClaimsMapValue>();
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const lower = k.toLowerCase();
    const name = hasuraCompat ? svcSessionName(lower) : lower;
    if (!name.startsWith('x-svc-')) {
      return fail(`claims_map: key "${k}" is not a session variable (it must start with x-svc-${hasuraCompat ? ' or x-hasura-' : ''})`);
    }
    if (hasuraCompat && out.has(name)) return fail(`claims_map: ${name} is given twice (as ${name} and ${HASURA_PREFIX}${name.slice('x-svc-'.length)}, or in two cases)`);
    const isRoles = name === ALLOWED_ROLES_CLAIM;
    const want = isRoles ? 'a list of strings' : 'a string';
    const okValue = (x: unknown): x is string | string[] =>
      isRoles ? Array.isArray(x) && x.every((r) => typeof r === 'string') : typeof x === 'string';
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const obj = v as Record<string, unknown>;
      if (typeof obj.path !== 'string') return fail(`claims_map: ${name} must be ${want} or {"path": "<JSON path>", "default": ...}`);
      if (obj.default !== undefined && !okValue(obj.default)) return fail(`claims_map: the default of ${name} must be ${want}`);
      const path = parsePath(obj.path, `claims_map.${name}.path`, fail);
      out.set(name, { kind: 'path', path, pathText: encodeJsonPath(path), default: obj.default as string | string[] | undefined });
    } else if (okValue(v)) {
      out.set(name, { kind: 'literal', value: v });
    } else {
      return fail(`claims_map: ${name} must be ${want} or {"path": "<JSON path>", "default": ...}`);
    }
  }
  for (const required of [ALLOWED_ROLES_CLAIM, DEFAULT_ROLE_CLAIM]) {
    if (!out.has(required)) fail(`claims_map: ${required} is expected but not found`);
  }
  return out;
}
