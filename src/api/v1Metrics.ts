/**
 * GET /v1/metrics — Prometheus text format from the engine's registry. Readable with the admin
 * secret (X-Svc-Admin-Secret; X-Hasura-Admin-Secret too under --hasura-compat), or `Authorization: Bearer <--metrics-secret>`; open only when
 * neither secret is configured. 404 when metrics are disabled.
 */
import { secretEquals } from '../auth/index.js';
import type { Handler } from './handlerTypes.js';
import { jsonResponse } from './handlerTypes.js';

const same = (sent: string | undefined, expected: string | undefined): boolean =>
  sent !== undefined && expected !== undefined && secretEquals(sent, expected);

export const v1Metrics: Handler = async (req, ctx) => {
  const { metrics, config } = ctx;
  if (metrics === undefined) return jsonResponse(404, { path: '$', error: 'resource does not exist', code: 'not-found' });
  const adminHeader = req.headers['x-svc-admin-secret'] ?? (ctx.hasuraCompat ? req.headers['x-hasura-admin-secret'] : undefined);
  const auth = req.headers.authorization;
  const bearer = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
  const open = config.adminSecret === undefined && config.metricsSecret === undefined;
  const allowed = open || same(typeof adminHeader === 'string' ? adminHeader : undefined, config.adminSecret) || same(bearer, config.metricsSecret);
  if (!allowed) {
    return { ...jsonResponse(401, { path: '$', error: 'invalid admin secret or metrics secret', code: 'access-denied' }), log: { error: 'metrics: access denied' } };
  }
  return { status: 200, headers: { 'content-type': metrics.contentType }, body: await metrics.text() };
};
