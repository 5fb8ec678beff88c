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
