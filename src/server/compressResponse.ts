/**
 * Response compression, as Hasura v2 does it: a client whose `Accept-Encoding` accepts `gzip` gets a JSON
 * response gzip-compressed at level 1 (speed over ratio) with `Content-Encoding: gzip` (and `Vary: Accept-Encoding`); a body under 700
 * bytes is sent as it is, unless the client refuses `identity` (`identity;q=0`, or `*;q=0` without
 * naming identity). Only gzip: `br` or `deflate` alone leave the response uncompressed. A response that
 * already names its encoding (a kept introspection answer sent as the gzip bytes it is kept as:
 * api/introspectionAnswers.ts) is left as it is. Bodies of 64 KB and more are compressed in libuv's thread
 * pool (zlib's async API), off the event loop; smaller ones at once (tens of microseconds).
 */
import { gzip, gzipSync, constants } from 'node:zlib';
import { promisify } from 'node:util';
import type { IncomingHttpHeaders } from 'node:http';
import { acceptedEncodings, releaseBuffer } from '../lib/index.js';
import type { HttpResponse } from '../api/index.js';

/** Below this many bytes a response is not worth compressing (Hasura's threshold). */
export const MIN_COMPRESSED_BYTES = 700;
/** From this many bytes the compression runs in the thread pool. */
const ASYNC_FROM = 64 * 1024;
const OPTIONS = { level: 1 };
const gzipAsync = promisify(gzip);
/** `Vary` too, so that a shared cache (a CDN in front of a cached query) keeps gzip bytes for gzip clients only. */
const GZIP_HEADERS = { 'content-encoding': 'gzip', vary: 'Accept-Encoding' };

const isJson = (type: unknown): boolean =>
  typeof type === 'string' && (type.startsWith('application/json') || type.startsWith('application/graphql-response+json'));

/**
 * `response` as it goes to a client that sent `headers`: gzip-compressed when the client accepts gzip and
 * the body is JSON of 700 bytes or more; else unchanged (the same object). `contentType` is the type the
 * response will carry.
 */
export function compressResponse(headers: IncomingHttpHeaders, response: HttpResponse, contentType: unknown): HttpResponse | Promise<HttpResponse> {
  const header = headers['accept-encoding'];
  // The hot path: a client that sends no Accept-Encoding (wrk, most server-side clients) costs one lookup.
  if (header === undefined) return response;
  const accepted = acceptedEncodings(header);
  if (!accepted.gzip || response.headers?.['content-encoding'] !== undefined || !isJson(contentType)) return response;
  if (response.status === 204 || response.status === 304) return response;
  const body = response.body;
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (size < MIN_COMPRESSED_BYTES && !accepted.identityRefused) return response;
  const withBody = (compressed: Buffer): HttpResponse => {
    // A pooled response buffer goes back once its bytes are compressed (nothing else reads it).
    if (typeof body !== 'string') releaseBuffer(body);
    return { ...response, headers: { ...response.headers, ...GZIP_HEADERS }, body: compressed };
  };
  if (size < ASYNC_FROM) return withBody(gzipSync(body, OPTIONS));
  return gzipAsync(body, { ...OPTIONS, flush: constants.Z_NO_FLUSH }).then(withBody);
}
