/**
 * CORS as Hasura v1.3 does it (`Hasura.Server.Middleware.corsMiddleware`): when the request's
 * Origin is allowed, the response reflects it with credentials allowed; an OPTIONS request from
 * an allowed origin is answered at once (204) as a preflight. Disallowed origins simply get no
 * CORS headers. Allowed origins: `*` (all), exact origins, `https://*.foo.com` (one subdomain
 * level) and `http://localhost:*` (any port).
 */
export interface CorsPolicy {
  /** Headers for a response to `origin`, or undefined when the origin is not allowed. */
  headersFor(origin: string): Record<string, string> | undefined;
}

const METHODS = 'GET,POST,PUT,PATCH,DELETE,OPTIONS';
export const PREFLIGHT_MAX_AGE = '1728000';

interface OriginPattern {
  scheme: string;
  /** Exact host, or the suffix after `*.` when `wildcardHost`. */
  host: string;
  wildcardHost: boolean;
  /** undefined: no port; '*': any port (or none). */
  port: string | undefined;
}

function parsePattern(entry: string): OriginPattern | undefined {
  const m = /^(https?):\/\/(\*\.)?([^:/]+)(?::(\d+|\*))?$/.exec(entry.trim());
  if (!m) return undefined;
  return { scheme: m[1]!, wildcardHost: m[2] !== undefined, host: m[3]!.toLowerCase(), port: m[4] };
}

function parseOrigin(origin: string): { scheme: string; host: string; port: string | undefined } | undefined {
  const m = /^(https?):\/\/([^:/]+)(?::(\d+))?$/.exec(origin);
  return m ? { scheme: m[1]!, host: m[2]!.toLowerCase(), port: m[3] } : undefined;
}

/** True when `origin` (e.g. `https://app.foo.com:8443`) matches one of the configured entries. */
export function originAllowed(origin: string, domains: readonly string[] | '*'): boolean {
  if (domains === '*') return true;
  const o = parseOrigin(origin);
  if (!o) return false;
  for (const entry of domains) {
    if (entry === origin) return true;
    const p = parsePattern(entry);
    if (!p || p.scheme !== o.scheme) continue;
    if (p.port !== '*' && p.port !== o.port) continue;
    if (p.wildcardHost) {
      const dot = o.host.indexOf('.');
      if (dot > 0 && o.host.slice(dot + 1) === p.host) return true;
    } else if (p.host === o.host) return true;
  }
  return false;
}

/** Builds the policy for the configured domains; undefined when CORS is disabled. */
export function corsPolicy(domains: readonly string[] | '*', disabled: boolean): CorsPolicy | undefined {
  if (disabled) return undefined;
  const cache = new Map<string, Record<string, string> | undefined>();
  return {
    headersFor(origin) {
      let h = cache.get(origin);
      if (h === undefined && !cache.has(origin)) {
        h = originAllowed(origin, domains)
          ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', 'access-control-allow-methods': METHODS, vary: 'Origin' }
          : undefined;
        if (cache.size > 1000) cache.clear();
        cache.set(origin, h);
      }
      return h;
    },
  };
}
