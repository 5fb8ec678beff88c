/**
 * Headers → Session. With no admin secret configured every request is admin (the role header
 * may pick another role). With a secret: the right `X-Svc-Admin-Secret` gives admin (a role
 * header then selects the role); a wrong one is refused with 401; none falls back to the
 * unauthorized role when configured. JWT and the auth webhook extend this (issue "Authentication").
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, roleSession, sessionVarsFrom, ADMIN_ROLE } from '../core/index.js';
import type { Session } from '../core/index.js';
import type { ServerConfig } from '../config/serverConfig.js';

export async function resolveSession(headers: IncomingHttpHeaders, config: ServerConfig): Promise<Session> {
  const vars = sessionVarsFrom(headers);
  const secretHeader = vars['x-svc-admin-secret'] ?? vars['x-svc-access-key'];
  delete vars['x-svc-admin-secret'];
  delete vars['x-svc-access-key'];
  const requestedRole = vars['x-svc-role'];
  if (config.adminSecret === undefined) return roleSession(requestedRole ?? ADMIN_ROLE, vars);
  if (secretHeader !== undefined) {
    if (secretHeader !== config.adminSecret) {
      throw new ApiError('access-denied', 'invalid x-svc-admin-secret/x-svc-access-key', { status: 401 });
    }
    return roleSession(requestedRole ?? ADMIN_ROLE, vars);
  }
  if (config.unauthorizedRole !== undefined) return roleSession(config.unauthorizedRole, vars);
  throw new ApiError('access-denied', 'x-svc-admin-secret/x-svc-access-key required, but not found', { status: 401 });
}
