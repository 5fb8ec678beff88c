/**
 * Reads an expiry out of HTTP caching headers, as Hasura does for the JWK set and for auth-webhook
 * responses: `Cache-Control: max-age=N` (or `s-maxage=N`) first; only when Cache-Control is absent,
 * the `Expires` HTTP date. Returns seconds from now, or undefined when no time can be parsed.
 */

/** Seconds in a `max-age` / `s-maxage` directive, or undefined. */
export function maxAgeSeconds(cacheControl: string): number | undefined {
  let sMaxAge: number | undefined;
  for (const part of cacheControl.split(',')) {
    const m = /^\s*(max-age|s-maxage)\s*=\s*"?(\d+)"?\s*$/i.exec(part);
    if (!m) continue;
    const n = Number(m[2]);
    if (m[1]!.toLowerCase() === 'max-age') return n;
    sMaxAge = n;
  }
  return sMaxAge;
}

/** Seconds until an `Expires` date (may be ≤ 0), or undefined when it is not a valid date. */
export function expiresInSeconds(expires: string, nowMs: number = Date.now()): number | undefined {
  const t = Date.parse(expires);
  if (Number.isNaN(t)) return undefined;
  return (t - nowMs) / 1000;
}

/**
 * The refresh time in seconds given the two header values (either may be undefined):
 * Cache-Control wins when present, else Expires.
 */
export function expiryFromHeaders(cacheControl: string | null | undefined, expires: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (cacheControl !== null && cacheControl !== undefined) return maxAgeSeconds(cacheControl);
  if (expires !== null && expires !== undefined) return expiresInSeconds(expires, nowMs);
  return undefined;
}
