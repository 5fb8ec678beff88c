/**
 * POST /v2/query — Hasura v2's schema API: `run_sql` and the DML operations (and `bulk` of them),
 * rewritten into the matching /v1/query operations (metadataApi/v2Query) and run the same way,
 * atomically. run_sql needs an admin; the DML runs under the role's permissions, as on /v1/query.
 */
import { ApiError, inHasuraMode, isApiError, isStackOverflow } from '../core/index.js';
import type { Session } from '../core/index.js';
import { checkUnauthenticatedBody, resolveSession } from '../auth/index.js';
import { decodeBody, encodeQueryResult, runQuery, v2QueryNeedsAdmin } from '../metadataApi/index.js';
import { jsonResponse } from './handlerTypes.js';
import type { Handler } from './handlerTypes.js';
import { errorResponse } from './v1Query.js';

export const v2Query: Handler = async (req, ctx) => {
  let session: Session | undefined;
  try {
    session = inHasuraMode(await resolveSession(req.headers, ctx.config, req.body), ctx.hasuraSession);
    // Without admin rights only a small body is parsed (auth/bodyLimits.ts).
    if (!session.isAdmin) checkUnauthenticatedBody(ctx.config, req.body.length, 'without admin rights');
    const { query } = await decodeBody(req.body, 'v2query');
    // Hasura's authorizeV2QueryApi: refused before anything runs.
    if (!session.isAdmin && v2QueryNeedsAdmin(query)) throw new ApiError('access-denied', 'restricted access : admin only', { path: '$.args' });
    const result = await runQuery(ctx, session, query);
    const res = jsonResponse(200, null);
    res.body = encodeQueryResult(result);
    res.log = { role: session.role };
    return res;
  } catch (e) {
    if (!isApiError(e) && !isStackOverflow(e)) ctx.logger.error({ type: 'v2-query', err: e }, 'unexpected error in /v2/query');
    return errorResponse(e, ctx.config.devMode || session?.isAdmin === true, session);
  }
};
