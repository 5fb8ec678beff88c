/**
 * Verified JWT payload + requested role → Session. The `x-svc-*` claims are found under the
 * claims namespace (a payload key), at `claims_namespace_path`, or assembled from `claims_map`;
 * then `x-svc-allowed-roles` / `x-svc-default-role` pick the role and every other `x-svc-*`
 * claim becomes a session variable. Errors use Hasura's codes and messages (DECISIONS 10).
 */
import { ApiError, conflictingSessionNames, HASURA_PREFIX, jsonTypeName, roleSession, SESSION_PREFIX, svcSessionName } from '../core/index.js';
import type { Session } from '../core/index.js';
import { readJsonPath } from './jsonPath.js';
import { ALLOWED_ROLES_CLAIM, DEFAULT_ROLE_CLAIM } from './jwtSettings.js';
import type { ClaimsFormat, ClaimsLocation } from './jwtSettings.js';

const invalidClaims = (message: string) => new ApiError('jwt-invalid-claims', message);
const missingRoleClaim = (claim: string) => new ApiError('jwt-missing-role-claims', `JWT claim does not contain ${claim}`);
/** A claim's name in the words of the engine's mode: Hasura's (`x-hasura-*`) under `--hasura-compat`. */
const spell = (name: string, hasuraCompat: boolean): string => (hasuraCompat ? HASURA_PREFIX + name.slice(SESSION_PREFIX.length) : name);

/**
 * The `x-svc-*` claims (lower-cased keys, JSON values) of a verified payload. With `hasuraCompat`,
 * `x-hasura-*` keys count as their `x-svc-*` twins and, with no namespace configured, Hasura's
 * namespace is read beside the engine's; a claim given twice with different values is refused.
 */
export function extractClaims(payload: Record<string, unknown>, loc: ClaimsLocation, hasuraCompat = false): Map<string, unknown> {
  if (loc.kind === 'map') return claimsFromMap(payload, loc.map, hasuraCompat);
  if (loc.kind === 'namespace' && loc.alsoNamespace !== undefined) {
    const ours = ownKey(payload, loc.namespace);
    const theirs = ownKey(payload, loc.alsoNamespace);
    if (ours === undefined && theirs === undefined) throw invalidClaims(`claims key: '${loc.alsoNamespace}' not found`);
    const out = new Map<string, unknown>();
    if (ours !== undefined) addClaims(out, claimsObject(ours, loc.format, `claims_namespace ${loc.namespace}`));
    if (theirs !== undefined) addClaims(out, claimsObject(theirs, loc.format, `claims_namespace ${loc.alsoNamespace}`));
    return out;
  }
  const found = loc.kind === 'namespace' ? ownKey(payload, loc.namespace) : readJsonPath(payload, loc.path);
  if (found === undefined) {
    throw invalidClaims(loc.kind === 'namespace' ? `claims key: '${loc.namespace}' not found` : `claims not found at claims_namespace_path: '${loc.pathText}'`);
  }
  const where = loc.kind === 'namespace' ? `claims_namespace ${loc.namespace}` : `claims_namespace_path ${loc.pathText}`;
  const obj = claimsObject(found, loc.format, where);
  const out = new Map<string, unknown>();
  if (hasuraCompat) {
    addClaims(out, obj);
    return out;
  }
  for (const [k, v] of Object.entries(obj)) {
    const key = k.toLowerCase();
    if (key.startsWith('x-svc-')) out.set(key, v);
  }
  return out;
}

const ownKey = (o: Record<string, unknown>, key: string): unknown => (Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined);

/** The claims object found at `where`, decoded per `claims_format`. */
function claimsObject(found: unknown, format: ClaimsFormat, where: string): Record<string, unknown> {
  if (format === 'stringified_json') {
    if (typeof found !== 'string') throw invalidClaims('expecting a string when claims_format is stringified_json');
    let obj: unknown;
    try {
      obj = JSON.parse(found);
    } catch {
      throw invalidClaims(`expecting stringified json at: '${where}', but found: ${found}`);
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw invalidClaims(`expecting stringified json at: '${where}', but found: ${found}`);
    return obj as Record<string, unknown>;
  }
  if (found === null || typeof found !== 'object' || Array.isArray(found)) throw invalidClaims('expecting a json object when claims_format is json');
  return found as Record<string, unknown>;
}

/** Adds the session claims of `obj` to `out` in either spelling (`x-hasura-*` as `x-svc-*`); a claim already there with another value is refused. */
function addClaims(out: Map<string, unknown>, obj: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = svcSessionName(k.toLowerCase());
    if (!key.startsWith('x-svc-')) continue;
    setClaim(out, key, v);
  }
}

function setClaim(out: Map<string, unknown>, key: string, v: unknown): void {
  if (out.has(key) && JSON.stringify(out.get(key)) !== JSON.stringify(v)) throw conflictingSessionNames('JWT claims', key, 'jwt-invalid-claims');
  out.set(key, v);
}

function claimsFromMap(payload: Record<string, unknown>, map: Extract<ClaimsLocation, { kind: 'map' }>['map'], hasuraCompat: boolean): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [name, spec] of map) {
    if (spec.kind === 'literal') {
      out.set(name, spec.value);
      continue;
    }
    const v = readJsonPath(payload, spec.path);
    if (v !== undefined) out.set(name, v);
    else if (spec.default !== undefined) out.set(name, spec.default);
    else if (name === ALLOWED_ROLES_CLAIM || name === DEFAULT_ROLE_CLAIM) throw missingRoleClaim(spell(name, hasuraCompat));
    else throw invalidClaims(`JWT claim from claims_map, ${spell(name, hasuraCompat)} not found (path ${spec.pathText})`);
  }
  return out;
}

/**
 * Picks the role and builds the session. `requestedRole` is the `x-svc-role` header: it must be
 * one of the allowed roles; without it the default role is used, which must be allowed too.
 */
export function sessionFromClaims(claims: Map<string, unknown>, requestedRole: string | undefined, hasuraCompat = false): Session {
  const ALLOWED = spell(ALLOWED_ROLES_CLAIM, hasuraCompat);
  const DEFAULT = spell(DEFAULT_ROLE_CLAIM, hasuraCompat);
  const allowedRaw = claims.get(ALLOWED_ROLES_CLAIM);
  if (allowedRaw === undefined) throw missingRoleClaim(ALLOWED);
  if (!Array.isArray(allowedRaw)) {
    throw invalidClaims(`invalid ${ALLOWED}; should be a list of roles: parsing [] failed, expected Array, but encountered ${jsonTypeName(allowedRaw)}`);
  }
  const bad = allowedRaw.find((r) => typeof r !== 'string' || r === '');
  if (bad !== undefined) {
    const why = bad === '' ? 'a role name cannot be empty' : `parsing Text failed, expected String, but encountered ${jsonTypeName(bad)}`;
    throw invalidClaims(`invalid ${ALLOWED}; should be a list of roles: ${why}`);
  }
  const allowed = allowedRaw as string[];
  const defaultRaw = claims.get(DEFAULT_ROLE_CLAIM);
  if (defaultRaw === undefined) throw missingRoleClaim(DEFAULT);
  if (typeof defaultRaw !== 'string' || defaultRaw === '') {
    const why = defaultRaw === '' ? 'a role name cannot be empty' : `parsing Text failed, expected String, but encountered ${jsonTypeName(defaultRaw)}`;
    throw invalidClaims(`invalid ${DEFAULT}; should be a single role name: ${why}`);
  }
  const role = requestedRole ?? defaultRaw;
  if (!allowed.includes(role)) throw new ApiError('access-denied', 'Your requested role is not in allowed roles');

  const vars: Record<string, string> = {};
  for (const [k, v] of claims) {
    if (k === ALLOWED_ROLES_CLAIM || k === DEFAULT_ROLE_CLAIM || k === 'x-svc-role') continue;
    if (typeof v !== 'string') {
      throw invalidClaims(`invalid ${hasuraCompat ? 'x-hasura-*' : 'x-svc-*'} claims: ${spell(k, hasuraCompat)} should be a string: parsing Text failed, expected String, but encountered ${jsonTypeName(v)}`);
    }
    vars[k] = v;
  }
  return roleSession(role, vars);
}
