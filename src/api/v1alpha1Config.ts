/**
 * GET /v1alpha1/config (SPEC "Config API"): admin only; reports the server version, which
 * authentication mechanisms are set, the JWT claims namespace/format, the allow-list switch and
 * the live-query settings, whether function permissions are inferred, and `warnings` (an engine open to the network: config/openAccessWarning.ts). Non-admin → 400 access-denied; missing/wrong credentials → the auth
 * error (401 for a wrong or missing admin secret).
 */
import { ApiError, errors, isApiError, isStackOverflow } from '../core/index.js';
import { authInfo, resolveSession } from '../auth/index.js';
import { openAccessWarning } from '../config/index.js';
import { jsonResponse } from './handlerTypes.js';
import type { Handler, HttpResponse } from './handlerTypes.js';

export const v1alpha1Config: Handler = async (req, ctx) => {
  try {
    const session = await resolveSession(req.headers, ctx.config);
    if (!session.isAdmin) throw new ApiError('access-denied', 'you have to be admin to access this endpoint');
    const auth = await authInfo(ctx.config);
    const res = jsonResponse(200, {
      version: ctx.version,
      is_admin_secret_set: auth.is_admin_secret_set,
      is_auth_hook_set: auth.is_auth_hook_set,
      is_jwt_set: auth.is_jwt_set,
      jwt: auth.jwt,
      is_allow_list_enabled: ctx.config.enableAllowlist,
      is_function_permissions_inferred: ctx.config.inferFunctionPermissions,
      live_queries: { batch_size: ctx.config.liveQueries.batchSize, refetch_delay: ctx.config.liveQueries.refetchIntervalMs / 1000 },
      // What the console shows as banners (an engine open to the network without an admin secret).
      warnings: [openAccessWarning(ctx.config)].filter((w) => w !== undefined),
    });
    res.log = { role: session.role };
    return res;
  } catch (e) {
    return apiErrorResponse(e, ctx.config.devMode);
  }
};

/** An error as `/v1/*` non-GraphQL endpoints answer it: `{path, error, code}` with its status. */
export function apiErrorResponse(e: unknown, showInternal: boolean): HttpResponse {
  const err = isApiError(e) ? e : isStackOverflow(e) ? errors.nestedTooDeeply() : new ApiError('unexpected', 'unexpected error', { status: 500, internal: String(e) });
  const res = jsonResponse(err.status, err.toQueryBody(showInternal));
  res.log = { error: err.message };
  return res;
}
