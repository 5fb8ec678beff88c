/**
 * Headers sent to a remote schema, as Hasura v1.3's `execRemoteGQ`: configured headers win over
 * the session variables (`x-svc-*`), which win over forwarded client headers (only with
 * `forward_client_headers`; hop-by-hop and content headers dropped, `x-svc-*` never forwarded as
 * client headers, `X-Forwarded-Host` / `X-Forwarded-User-Agent` added). A session read in Hasura's
 * words (`--hasura-compat`) does not forward `x-hasura-*` client headers either, and with Hasura's
 * session variables the remote gets each variable as `x-hasura-*` too, as Hasura sends them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { HASURA_PREFIX, sessionJson, type Session } from '../core/index.js';
import type { RemoteSchemaInfo } from '../metadata/index.js';

/** Client headers never forwarded (Hasura's `commonClientHeadersIgnored`, plus the body's own). */
const IGNORED = new Set([
  'content-length', 'content-md5', 'content-type', 'user-agent', 'host', 'origin', 'referer', 'accept', 'accept-encoding',
  'accept-language', 'accept-datetime', 'cache-control', 'connection', 'dnt', 'transfer-encoding', 'keep-alive', 'upgrade',
  'te', 'trailer', 'proxy-authorization', 'expect',
]);

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(', ') : v);

/** The headers of one request to `remote` (lower-case names). */
export function remoteRequestHeaders(remote: RemoteSchemaInfo, session: Session, client: IncomingHttpHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (remote.forwardClientHeaders && client) {
    for (const [k, v] of Object.entries(client)) {
      const key = k.toLowerCase();
      const value = one(v);
      if (value === undefined || IGNORED.has(key) || key.startsWith('x-svc-') || (session.hasuraCompat && key.startsWith(HASURA_PREFIX))) continue;
      out[key] = value;
    }
    const host = one(client.host);
    if (host) out['x-forwarded-host'] = host;
    const ua = one(client['user-agent']);
    if (ua) out['x-forwarded-user-agent'] = ua;
  }
  for (const [k, v] of Object.entries(sessionJson(session))) out[k.toLowerCase()] = String(v);
  for (const h of remote.headers) out[h.name.toLowerCase()] = h.value;
  out['content-type'] = 'application/json';
  return out;
}
