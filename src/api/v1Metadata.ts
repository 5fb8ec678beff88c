/**
 * POST /v1/metadata — Hasura v2's metadata endpoint: the body is rewritten into the matching
 * /v1/query operations (metadataApi/v2Metadata) and run the same way, atomically; export_metadata
 * answers in the version-3 (`sources`) format. Errors keep the `{path, error, code}` shape.
 */
import { inHasuraMode, isApiError, isStackOverflow } from '../core/index.js';
import type { Session } from '../core/index.js';
import { checkUnauthenticatedBody, resolveSession } from '../auth/index.js';
import { decodeBody, encodeQueryResult, runQuery, v2MetadataResult } from '../metadataApi/index.js';
import { jsonResponse } from './handlerTypes.js';
import type { Handler } from './handlerTypes.js';
import { errorResponse } from './v1Query.js';

export const v1Metadata: Handler = async (req, ctx) => {
  let session: Session | undefined;
  try {
    session = inHasuraMode(await resolveSession(req.headers, ctx.config, req.body), ctx.hasuraSession);
    // Without admin rights only a small body is parsed (auth/bodyLimits.ts).
    if (!session.isAdmin) checkUnauthenticatedBody(ctx.config, req.body.length, 'without admin rights');
    // A large (admin) body is decoded off the main thread (metadataApi/decodeBody.ts).
    const { query, shape } = await decodeBody(req.body, 'metadata', { hasuraNames: ctx.hasuraCompat === true });
    const result = await runQuery(ctx, session, query);
    const res = jsonResponse(200, null);
    res.body = encodeQueryResult(v2MetadataResult(shape, result));
    res.log = { role: session.role };
    return res;
  } catch (e) {
    if (!isApiError(e) && !isStackOverflow(e)) ctx.logger.error({ type: 'v1-metadata', err: e }, 'unexpected error in /v1/metadata');
    return errorResponse(e, ctx.config.devMode || session?.isAdmin === true, session);
  }
};
