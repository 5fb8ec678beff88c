/**
 * GET /healthz — public, never disabled: 200 `OK`; 200 `WARN: inconsistent objects in schema`
 * when metadata has inconsistent objects (500 `ERROR` instead with `?strict=true`); 500 `ERROR`
 * when Postgres does not answer.
 */
import type { Handler, HttpResponse } from './handlerTypes.js';

const text = (status: number, body: string): HttpResponse => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body });

export const healthz: Handler = async (req, ctx) => {
  if (!(await ctx.db.ping())) return text(500, 'ERROR');
  if (ctx.state.current.inconsistentObjects.length > 0) {
    return req.query.get('strict') === 'true' ? text(500, 'ERROR') : text(200, 'WARN: inconsistent objects in schema');
  }
  return text(200, 'OK');
};
