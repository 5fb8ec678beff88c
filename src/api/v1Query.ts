/**
 * POST /v1/query — the metadata API and v1 DML: session from the headers, JSON body decoded into
 * operations (all of them, before anything runs), then run atomically (metadataApi/runQuery).
 * Errors answer `{path, error, code}` with their status; `internal` details only for admins
 * (as Hasura's admin-internal-errors) or in dev mode.
 */
import { ApiError, errors, inHasuraMode, isApiError, isStackOverflow } from '../core/index.js';
import type { Session } from '../core/index.js';
import { checkUnauthenticatedBody, resolveSession } from '../auth/index.js';
import { decodeBody, encodeQueryResult, runQuery } from '../metadataApi/index.js';
import { jsonResponse } from './handlerTypes.js';
import type { Handler, HttpResponse } from './handlerTypes.js';

export function errorResponse(e: unknown, showInternal: boolean, session?: Session): HttpResponse {
  const err = isApiError(e)
    ? e
    : isStackOverflow(e)
      ? errors.nestedTooDeeply('parse-failed')
      : new ApiError('unexpected', 'unexpected error', { status: 500, internal: e instanceof Error ? e.message : String(e) });
  const res = jsonResponse(err.status, err.toQueryBody(showInternal));
  res.log = { role: session?.role, error: err.message };
  return res;
}

export const v1Query: Handler = async (req, ctx) => {
  let session: Session | undefined;
  try {
    session = inHasuraMode(await resolveSession(req.headers, ctx.config, req.body), ctx.hasuraSession);
    // Without admin rights only a small body is parsed (auth/bodyLimits.ts).
    if (!session.isAdmin) checkUnauthenticatedBody(ctx.config, req.body.length, 'without admin rights');
    // A large (admin) body is decoded off the main thread (metadataApi/decodeBody.ts).
    const { query } = await decodeBody(req.body, 'query', { hasuraNames: ctx.hasuraCompat === true });
    const result = await runQuery(ctx, session, query);
    const res = jsonResponse(200, null);
    res.body = encodeQueryResult(result); // v1 DML answers are JSON text built by Postgres (RawJson)
    res.log = { role: session.role };
    return res;
  } catch (e) {
    if (!isApiError(e) && !isStackOverflow(e)) ctx.logger.error({ type: 'v1-query', err: e }, 'unexpected error in /v1/query');
    return errorResponse(e, ctx.config.devMode || session?.isAdmin === true, session);
  }
};
