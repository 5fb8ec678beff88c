/**
 * Verified JWT payload + requested role → Session. The `x-svc-*` claims are found under the
 * claims namespace (a payload key), at `claims_namespace_path`, or assembled from `claims_map`;
 * then `x-svc-allowed-roles` / `x-svc-default-role` pick the role and every other `x-svc-*`
 * claim becomes a session variable. Errors use Hasura's codes and messages (DECISIONS 10).
 */
import { ApiError, jsonTypeName, roleSession } from '../core/index.js';
import type { Session } from '../core/index.js';
import { readJsonPath } from './jsonPath.js';
import { ALLOWED_ROLES_CLAIM, DEFAULT_ROLE_CLAIM } from './jwtSettings.js';
import type { ClaimsLocation } from './jwtSettings.js';

const invalidClaims = (message: string) => new ApiError('jwt-invalid-claims', message);
const missingRoleClaim = (claim: string) => new ApiError('jwt-missing-role-claims', `JWT claim does not contain ${claim}`);

/** The `x-svc-*` claims (lower-cased keys, JSON values) of a verified payload. */
export function extractClaims(payload: Record<string, unknown>, loc: ClaimsLocation): Map<string, unknown> {
  if (loc.kind === 'map') return claimsFromMap(payload, loc.map);
  const found = loc.kind === 'namespace' ? (Object.prototype.hasOwnProperty.call(payload, loc.namespace) ? payload[loc.namespace] : undefined) : readJsonPath(payload, loc.path);
  if (found === undefined) {
    throw invalidClaims(loc.kind === 'namespace' ? `claims key: '${loc.namespace}' not found` : `claims not found at claims_namespace_path: '${loc.pathText}'`);
  }
  let obj: unknown = found;
  if (loc.format === 'stringified_json') {
    if (typeof found !== 'string') throw invalidClaims('expecting a string when claims_format is stringified_json');
    const where = loc.kind === 'namespace' ? `claims_namespace ${loc.namespace}` : `claims_namespace_path ${loc.pathText}`;
    try {
      obj = JSON.parse(found);
    } catch {
      throw invalidClaims(`expecting stringified json at: '${where}', but found: ${found}`);
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw invalidClaims(`expecting stringified json at: '${where}', but found: ${found}`);
  } else if (found === null || typeof found !== 'object' || Array.isArray(found)) {
    throw invalidClaims('expecting a json object when claims_format is json');
  }
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
    const key = k.toLowerCase();
    if (key.startsWith('x-svc-')) out.set(key, v);
  }
  return out;
}

function claimsFromMap(payload: Record<string, unknown>, map: Extract<ClaimsLocation, { kind: 'map' }>['map']): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [name, spec] of map) {
    if (spec.kind === 'literal') {
      out.set(name, spec.value);
      continue;
    }
    const v = readJsonPath(payload, spec.path);
    if (v !== undefined) out.set(name, v);
    else if (spec.default !== undefined) out.set(name, spec.default);
    else if (name === ALLOWED_ROLES_CLAIM || name === DEFAULT_ROLE_CLAIM) throw missingRoleClaim(name);
    else throw invalidClaims(`JWT claim from claims_map, ${name} not found (path ${spec.pathText})`);
  }
  return out;
}

/**
 * Picks the role and builds the session. `requestedRole` is the `x-svc-role` header: it must be
 * one of the allowed roles; without it the default role is used, which must be allowed too.
 */
export function sessionFromClaims(claims: Map<string, unknown>, requestedRole: string | undefined): Session {
  const allowedRaw = claims.get(ALLOWED_ROLES_CLAIM);
  if (allowedRaw === undefined) throw missingRoleClaim(ALLOWED_ROLES_CLAIM);
  if (!Array.isArray(allowedRaw)) {
    throw invalidClaims(`invalid ${ALLOWED_ROLES_CLAIM}; should be a list of roles: parsing [] failed, expected Array, but encountered ${jsonTypeName(allowedRaw)}`);
  }
  const bad = allowedRaw.find((r) => typeof r !== 'string' || r === '');
  if (bad !== undefined) {
    const why = bad === '' ? 'a role name cannot be empty' : `parsing Text failed, expected String, but encountered ${jsonTypeName(bad)}`;
    throw invalidClaims(`invalid ${ALLOWED_ROLES_CLAIM}; should be a list of roles: ${why}`);
  }
  const allowed = allowedRaw as string[];
  const defaultRaw = claims.get(DEFAULT_ROLE_CLAIM);
  if (defaultRaw === undefined) throw missingRoleClaim(DEFAULT_ROLE_CLAIM);
  if (typeof defaultRaw !== 'string' || defaultRaw === '') {
    const why = defaultRaw === '' ? 'a role name cannot be empty' : `parsing Text failed, expected String, but encountered ${jsonTypeName(defaultRaw)}`;
    throw invalidClaims(`invalid ${DEFAULT_ROLE_CLAIM}; should be a single role name: ${why}`);
  }
  const role = requestedRole ?? defaultRaw;
  if (!allowed.includes(role)) throw new ApiError('access-denied', 'Your requested role is not in allowed roles');

  const vars: Record<string, string> = {};
  for (const [k, v] of claims) {
    if (k === ALLOWED_ROLES_CLAIM || k === DEFAULT_ROLE_CLAIM || k === 'x-svc-role') continue;
    if (typeof v !== 'string') {
      throw invalidClaims(`invalid x-svc-* claims: ${k} should be a string: parsing Text failed, expected String, but encountered ${jsonTypeName(v)}`);
    }
    vars[k] = v;
  }
  return roleSession(role, vars);
}
