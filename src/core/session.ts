import { ApiError } from './apiError.js';

/**
 * A request's session: its role and its session variables. Variable names are lower-cased and
 * keep their `x-svc-` prefix (`x-svc-user-id`); `x-svc-role` is always present.
 */
export interface Session {
  role: string;
  /** True for the admin role (admin secret, or no secret configured). Admin bypasses permissions. */
  isAdmin: boolean;
  vars: Readonly<Record<string, string>>;
  /**
   * A trusted backend's request (admin secret, or no secret configured, and
   * `x-svc-use-backend-only-permissions: true`): the role's `backend_only` mutations are offered.
   */
  backendOnly?: boolean;
  /**
   * Hasura-compatible session variables are on (`--hasura-session-variables`): the request's
   * transaction sets `hasura.user` (keys `x-hasura-*`) beside `svc.user`, and the session JSON handed to
   * SQL and webhooks carries `x-hasura-*` keys beside the `x-svc-*` ones. Absent: off.
   */
  hasura?: true;
  /**
   * The request was read in Hasura's words too (`--hasura-compat`): its `x-hasura-*` headers are session
   * headers, so they are not forwarded to remote schemas or action handlers as client headers. Absent: off.
   */
  hasuraCompat?: true;
}

export const ADMIN_ROLE = 'admin';
export const SESSION_PREFIX = 'x-svc-';

export function adminSession(extra: Record<string, string> = {}): Session {
  return { role: ADMIN_ROLE, isAdmin: true, vars: { ...extra, 'x-svc-role': ADMIN_ROLE } };
}

export function roleSession(role: string, vars: Record<string, string>): Session {
  return { role, isAdmin: role === ADMIN_ROLE, vars: { ...vars, 'x-svc-role': role } };
}

/**
 * Picks the `x-svc-*` entries of a header-like record, lower-casing names, in one pass: the
 * (lower-case) names in `apart` go to `apart` instead of `vars` (the admin secret is a header, not a
 * session variable).
 */
export function splitSessionHeaders(
  headers: Record<string, string | string[] | undefined>, apart: readonly string[],
): { vars: Record<string, string>; apart: Record<string, string> } {
  const vars: Record<string, string> = {};
  const aside: Record<string, string> = {};
  for (const k in headers) {
    const key = k.toLowerCase();
    if (!key.startsWith(SESSION_PREFIX)) continue;
    const v = headers[k];
    if (v === undefined) continue;
    (apart.includes(key) ? aside : vars)[key] = Array.isArray(v) ? v.join(',') : v;
  }
  return { vars, apart: aside };
}

export const isSessionVariable = (name: string): boolean => name.toLowerCase().startsWith(SESSION_PREFIX);

/** Lower-case session variable names seen in permissions, one string each (a 5,000-table metadata names one variable ~70,000 times). */
const sessionNames = new Map<string, string>();

/** `name.toLowerCase()` as one shared string per distinct name (the first 10,000 names; later ones are not kept). */
export function sessionVariableName(name: string): string {
  const lower = name.toLowerCase();
  const known = sessionNames.get(lower);
  if (known !== undefined) return known;
  if (sessionNames.size < 10_000) sessionNames.set(lower, lower);
  return lower;
}

export const HASURA_PREFIX = 'x-hasura-';

/** The engine's name of a lower-case session name written in Hasura's words (`x-hasura-user-id` → `x-svc-user-id`); others unchanged. */
export const svcSessionName = (key: string): string => (key.startsWith(HASURA_PREFIX) ? SESSION_PREFIX + key.slice(HASURA_PREFIX.length) : key);

/** Whether a lower-case header name is a session header in either spelling (`x-svc-*`, `x-hasura-*`). */
export const isEitherSessionName = (key: string): boolean => key.startsWith(SESSION_PREFIX) || key.startsWith(HASURA_PREFIX);

/**
 * The same session name given in both spellings with different values: one session cannot hold both,
 * and taking either could raise what the other allows, so the request is refused (values not shown:
 * one may be a secret).
 */
export const conflictingSessionNames = (what: string, key: string, code = 'invalid-headers', status = 400): ApiError =>
  new ApiError(code, `conflicting ${what}: ${key} and ${HASURA_PREFIX}${key.slice(SESSION_PREFIX.length)} have different values`, { status });

/**
 * `splitSessionHeaders` in Hasura's words too (`--hasura-compat`): `x-hasura-*` headers count as their
 * `x-svc-*` twins. A name given in both spellings with different values throws `conflictingSessionNames`.
 */
export function splitSessionHeadersCompat(
  headers: Record<string, string | string[] | undefined>, apart: readonly string[],
): { vars: Record<string, string>; apart: Record<string, string> } {
  const vars: Record<string, string> = {};
  const aside: Record<string, string> = {};
  for (const k in headers) {
    const lower = k.toLowerCase();
    let key: string;
    if (lower.startsWith(SESSION_PREFIX)) key = lower;
    else if (lower.startsWith(HASURA_PREFIX)) key = SESSION_PREFIX + lower.slice(HASURA_PREFIX.length);
    else continue;
    const v = headers[k];
    if (v === undefined) continue;
    const value = Array.isArray(v) ? v.join(',') : v;
    const into = apart.includes(key) ? aside : vars;
    const before = into[key];
    if (before === undefined) into[key] = value;
    else if (before !== value) throw conflictingSessionNames('session headers', key);
  }
  return { vars, apart: aside };
}

/** The variables as Hasura names them: each `x-svc-*` key as `x-hasura-*` (what `hasura.user` holds). */
export function hasuraSessionVars(vars: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in vars) out[k.startsWith(SESSION_PREFIX) ? HASURA_PREFIX + k.slice(SESSION_PREFIX.length) : k] = vars[k];
  return out;
}

/** `vars` with an `x-hasura-*` twin beside each `x-svc-*` key (keys already there win). */
export function withHasuraKeys(vars: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...vars };
  for (const k in vars) {
    if (!k.startsWith(SESSION_PREFIX)) continue;
    const twin = HASURA_PREFIX + k.slice(SESSION_PREFIX.length);
    if (!(twin in out)) out[twin] = vars[k];
  }
  return out;
}

/** The session as SQL and webhooks see it: `vars`, plus the `x-hasura-*` twins in Hasura-compatible mode. */
export const sessionJson = (s: Session): Readonly<Record<string, unknown>> => (s.hasura ? withHasuraKeys(s.vars) : s.vars);

/** `s` marked for Hasura-compatible session variables when `on` (the same object when off). */
export const inHasuraMode = (s: Session, on: boolean | undefined): Session => (on ? { ...s, hasura: true } : s);
