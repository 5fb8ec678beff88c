/**
 * The engine's authenticator: built once at start from the server config (validating it, and
 * fetching the JWK set when `jwk_url` is used), then asked for every request's Session.
 *
 * Modes, as Hasura's `setupAuthMode` / `getUserInfoWithExpTime`:
 *  - no admin secret: every request is admin; `x-svc-role` may pick another role;
 *  - admin secret: the right `X-Svc-Admin-Secret` gives admin (a role header then picks the role),
 *    a wrong one is 401; without it → JWT, the auth webhook, or the unauthorized role;
 *  - JWT: `Authorization: Bearer <token>` (verifyJwt + jwtClaims); with several configurations
 *    (`--jwt-secrets`), the one configuration whose issuer fits the token's `iss` (Hasura's rules:
 *    none, or more than one, refuses the token);
 *  - webhook: authWebhook.
 * Only the first two may ask for `backend_only` permissions (backendOnlyHeader.ts).
 * With `--hasura-compat` every path also reads Hasura's words — `X-Hasura-*` headers, claims under
 * Hasura's namespace with `x-hasura-*` keys, the webhook's `X-Hasura-*` answer — as the same names:
 * one session, a name given twice with different values refused (core `splitSessionHeadersCompat`).
 * JWT or the webhook without an admin secret, both together, or an unauthorized role with the
 * webhook refuse to start (`AuthConfigError`, one line).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, roleSession, splitSessionHeaders, splitSessionHeadersCompat, ADMIN_ROLE } from '../core/index.js';
import type { Session } from '../core/index.js';
import type { ServerConfig } from '../config/index.js';
import { silentLogger } from './authLogger.js';
import { secretEquals } from './secretEquals.js';
import type { AuthLogger } from './authLogger.js';
import { sessionFromWebhook } from './authWebhook.js';
import { checkUnauthenticatedBody } from './bodyLimits.js';
import { withBackendOnly } from './backendOnlyHeader.js';
import type { WebhookSettings } from './authWebhook.js';
import { JwkStore } from './jwkStore.js';
import { extractClaims, sessionFromClaims } from './jwtClaims.js';
import { AuthConfigError, parseJwtSettings } from './jwtSettings.js';
import type { JwtSettings } from './jwtSettings.js';
import { JwtError, verifyJwt } from './verifyJwt.js';
import type { KeyResolver } from './verifyJwt.js';

export type AuthMode = 'no-auth' | 'admin-secret' | 'jwt' | 'webhook';

export interface AuthResult {
  session: Session;
  /** When the credentials stop being valid (JWT `exp`, webhook expiry); WebSockets close then. */
  expiresAt?: Date;
}

/** What the config API reports about authentication. */
export interface AuthInfo {
  is_admin_secret_set: boolean;
  is_auth_hook_set: boolean;
  is_jwt_set: boolean;
  jwt: JwtSettings['info'] | null;
}

export interface Authenticator {
  readonly mode: AuthMode;
  readonly info: AuthInfo;
  /**
   * Headers (of the HTTP request, or of a WebSocket `connection_init`) → session + expiry.
   * `clientRequest` is the request body (Buffer, text or parsed JSON); only the POST-mode auth
   * webhook uses it. Throws `ApiError`s with Hasura's codes.
   */
  authenticate(headers: IncomingHttpHeaders | Record<string, string>, clientRequest?: unknown): Promise<AuthResult>;
  /** `authenticate(...)` without the expiry. */
  resolveSession(headers: IncomingHttpHeaders | Record<string, string>, clientRequest?: unknown): Promise<Session>;
  /** Stops the JWK refresh timer. */
  close(): void;
}

export interface AuthenticatorOptions {
  /** Server version, sent as `User-Agent: svc-graphql-engine/<version>` to the auth webhook. */
  version?: string;
  /** JWK refresh retry delay (default one minute; tests shorten it). */
  jwkRetryMs?: number;
  /** Shortest delay between JWK refreshes (default 1 s). */
  jwkMinRefreshMs?: number;
  /** Auth webhook timeout (default 60 s). */
  webhookTimeoutMs?: number;
  /** Clock in ms (tests). */
  now?: () => number;
  /** Read Hasura's words too (`--hasura-compat`, resolved); default: the config's `hasuraCompat` is `true`. */
  hasuraCompat?: boolean;
}

/** The admin-secret headers (the current name and the older one), kept out of the session variables. */
const SECRET_HEADERS = ['x-svc-admin-secret', 'x-svc-access-key'] as const;

/**
 * Checks the auth part of the config without fetching anything (startEngine calls it before the
 * database is up, when `--hasura-compat auto` is not yet decided: `hasuraCompat` then allows Hasura's
 * words, and `createAuthenticator` checks again once it is decided); throws `AuthConfigError`.
 */
export function checkAuthConfig(config: ServerConfig, hasuraCompat: boolean, logger: AuthLogger = silentLogger): void {
  authSettings(config, hasuraCompat, logger);
}

/** Validates the auth part of the config and builds the authenticator; throws `AuthConfigError`. */
export async function createAuthenticator(config: ServerConfig, logger: AuthLogger = silentLogger, opts: AuthenticatorOptions = {}): Promise<Authenticator> {
  const compat = opts.hasuraCompat ?? config.hasuraCompat === 'true';
  const { hasSecret, hasJwt, hasHook, jwtSettings } = authSettings(config, compat, logger);
  const now = opts.now ?? Date.now;
  const adminSecret = hasSecret ? config.adminSecret! : undefined;
  const jwts: JwtVerifier[] = [];
  let hook: WebhookSettings | undefined;

  for (const settings of jwtSettings) {
    if (settings.keySource.kind === 'static') {
      const { alg, key } = settings.keySource;
      const resolve: KeyResolver = (h) => {
        // Hasura (jose) reports a token signed with another algorithm as an invalid signature.
        if (h.alg !== alg) throw new JwtError('JWSError JWSInvalidSignature', `the token is signed with ${h.alg} but the configured type is ${alg}`);
        return [key];
      };
      jwts.push({ settings, resolve });
    } else {
      const store = await JwkStore.start(settings.keySource.url, logger, { retryMs: opts.jwkRetryMs, minRefreshMs: opts.jwkMinRefreshMs });
      jwts.push({ settings, resolve: store.resolve, store });
    }
  }
  const jwt = jwts[0];
  if (hasHook) {
    hook = { url: config.authHook!, mode: String(config.authHookMode ?? 'GET').toUpperCase() as 'GET' | 'POST', userAgent: `svc-graphql-engine/${opts.version ?? 'dev'}`, timeoutMs: opts.webhookTimeoutMs ?? 60_000, hasuraCompat: compat };
  }
  const mode: AuthMode = !hasSecret ? 'no-auth' : jwt ? 'jwt' : hook ? 'webhook' : 'admin-secret';
  const info: AuthInfo = { is_admin_secret_set: hasSecret, is_auth_hook_set: hasHook, is_jwt_set: hasJwt, jwt: jwt ? jwt.settings.info : null };
  const expiredStatus = config.jwtExpiredStatus === 401 ? 401 : 400;

  // Chosen once: off, the request's headers are split as they always were.
  const split: (h: IncomingHttpHeaders | Record<string, string>) => { vars: Record<string, string>; apart: Record<string, string> } = compat
    ? (h) => splitSessionHeadersCompat(h, SECRET_HEADERS)
    : (h) => splitSessionHeaders(h, SECRET_HEADERS);

  async function authenticateHeaders(headers: IncomingHttpHeaders | Record<string, string>, clientRequest?: unknown): Promise<AuthResult> {
    const { vars, apart } = split(headers);
    const sentSecret = apart['x-svc-admin-secret'] ?? apart['x-svc-access-key'];
    const requestedRole = vars['x-svc-role'];
    if (adminSecret === undefined) return { session: withBackendOnly(roleSession(requestedRole ?? ADMIN_ROLE, vars)) };
    if (sentSecret !== undefined) {
      if (!secretEquals(sentSecret, adminSecret)) {
        // Named as sent: Hasura's header (under --hasura-compat) gets Hasura's message.
        const sentSvc = headerValue(headers, 'x-svc-admin-secret') !== undefined || headerValue(headers, 'x-svc-access-key') !== undefined;
        throw new ApiError('access-denied', `invalid ${compat && !sentSvc ? 'x-hasura-admin-secret/x-hasura-access-key' : 'x-svc-admin-secret/x-svc-access-key'}`, { status: 401 });
      }
      return { session: withBackendOnly(roleSession(requestedRole ?? ADMIN_ROLE, vars)) };
    }
    if (jwt) return fromJwt(headers, vars, requestedRole);
    if (hook) {
      // The POST-mode hook gets the request, parsed: only a small one, before anyone vouched for it.
      if (hook.mode === 'POST') checkUnauthenticatedBody(config, rawSize(clientRequest), 'before the auth webhook has answered');
      return sessionFromWebhook(hook, headers as IncomingHttpHeaders, clientRequestJson(clientRequest), logger);
    }
    if (config.unauthorizedRole !== undefined) return { session: roleSession(config.unauthorizedRole, vars) };
    throw new ApiError('access-denied', `${compat ? 'x-hasura-admin-secret/x-hasura-access-key' : 'x-svc-admin-secret/x-svc-access-key'} required, but not found`, { status: 401 });
  }

  function fromJwt(
    headers: IncomingHttpHeaders | Record<string, string>,
    vars: Record<string, string>,
    requestedRole: string | undefined,
  ): AuthResult {
    const authz = headerValue(headers, 'authorization');
    if (authz === undefined) {
      if (config.unauthorizedRole !== undefined) return { session: roleSession(config.unauthorizedRole, vars) };
      throw new ApiError('invalid-headers', 'Missing Authorization header in JWT authentication mode');
    }
    const words = authz.trim().split(/\s+/);
    if (words.length !== 2 || words[0] !== 'Bearer') throw new ApiError('invalid-headers', 'Malformed Authorization header');
    const token = words[1]!;
    const j = jwts.length === 1 ? jwts[0]! : verifierFor(jwts, token);
    const s = j.settings;
    try {
      const verified = verifyJwt(token, j.resolve, { audience: s.audience, issuer: s.issuer, leewaySeconds: s.leewaySeconds, now: now() / 1000 });
      const claims = extractClaims(verified.payload, s.claims, s.hasuraCompat);
      return { session: sessionFromClaims(claims, requestedRole, s.hasuraCompat), expiresAt: verified.expiresAt };
    } catch (e) {
      if (!(e instanceof JwtError)) throw e;
      throw new ApiError('invalid-jwt', `Could not verify JWT: ${e.reason}`, { status: e.expired ? expiredStatus : 400, internal: e.detail ? { detail: e.detail } : undefined });
    }
  }

  const authenticate = compat
    ? (headers: IncomingHttpHeaders | Record<string, string>, clientRequest?: unknown) => authenticateHeaders(headers, clientRequest).then(markCompat)
    : authenticateHeaders;
  return {
    mode,
    info,
    authenticate,
    resolveSession: async (headers, clientRequest) => (await authenticate(headers, clientRequest)).session,
    close: () => jwts.forEach((j) => j.store?.close()),
  };
}

/** The checked auth settings: which modes are on, and each JWT configuration parsed. */
function authSettings(config: ServerConfig, compat: boolean, logger: AuthLogger) {
  const hasSecret = config.adminSecret !== undefined && config.adminSecret !== '';
  const jwtConfigs = config.jwtSecrets ?? (config.jwtSecret !== undefined && config.jwtSecret !== null ? [config.jwtSecret] : []);
  const hasJwt = jwtConfigs.length > 0;
  const hasHook = config.authHook !== undefined && config.authHook !== '';
  const needsSecret = ' requires --admin-secret (SVC_GRAPHQL_ADMIN_SECRET) to be set';
  if (hasJwt && hasHook) throw new AuthConfigError('Fatal Error: Both webhook and JWT mode cannot be enabled at the same time');
  if (hasHook && config.unauthorizedRole !== undefined) {
    throw new AuthConfigError('Fatal Error: --unauthorized-role (SVC_GRAPHQL_UNAUTHORIZED_ROLE) is not allowed when --auth-hook (SVC_GRAPHQL_AUTH_HOOK) is set');
  }
  if (hasJwt && !hasSecret) throw new AuthConfigError(`Fatal Error: --jwt-secret (SVC_GRAPHQL_JWT_SECRET)${needsSecret}`);
  if (hasHook && !hasSecret) throw new AuthConfigError(`Fatal Error: --auth-hook (SVC_GRAPHQL_AUTH_HOOK)${needsSecret}`);
  if (!hasSecret && config.unauthorizedRole !== undefined) {
    throw new AuthConfigError(`Fatal Error: --unauthorized-role (SVC_GRAPHQL_UNAUTHORIZED_ROLE)${needsSecret}`);
  }

  const jwtSettings = jwtConfigs.map((raw, i) => {
    const source = config.jwtSecrets ? `--jwt-secrets (SVC_GRAPHQL_JWT_SECRETS) item ${i}` : undefined;
    return parseJwtSettings(raw, config.jwtLeewaySeconds ?? 0, (m) => logger.warn({ type: 'startup' }, m), source, compat);
  });
  if (hasHook) {
    const mode = String(config.authHookMode ?? 'GET').toUpperCase();
    if (mode !== 'GET' && mode !== 'POST') throw new AuthConfigError(`Fatal Error: --auth-hook-mode (SVC_GRAPHQL_AUTH_HOOK_MODE) must be GET or POST, not "${config.authHookMode}"`);
    try {
      const u = new URL(config.authHook!);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new AuthConfigError(`Fatal Error: --auth-hook (SVC_GRAPHQL_AUTH_HOOK) is not a valid http(s) URL: ${config.authHook}`);
    }
  }
  return { hasSecret, hasJwt, hasHook, jwtSettings };
}

/** The session (built for this request), marked as read in Hasura's words too (its `x-hasura-*` headers are not forwarded as client headers). */
const markCompat = (r: AuthResult): AuthResult => {
  r.session.hasuraCompat = true;
  return r;
};

/** One JWT configuration, ready to verify: its settings and where its keys come from. */
interface JwtVerifier {
  settings: JwtSettings;
  resolve: KeyResolver;
  store?: JwkStore;
}

/**
 * The one configuration of `--jwt-secrets` that verifies `token`, by Hasura's rules for several
 * secrets: a configuration is for the token when its `issuer` equals the token's `iss`, or either is
 * absent. None: `invalid-jwt` JWTNotInIssuer; more than one: `invalid-headers` "Multiple JWTs found"
 * (the token is ambiguous). A token is never tried against a second configuration once the first
 * refused it, so no issuer can borrow another configuration's key. Audiences do not choose: the
 * chosen configuration checks `aud` as it verifies.
 */
function verifierFor(jwts: readonly JwtVerifier[], token: string): JwtVerifier {
  const iss = tokenIssuer(token);
  const fit = jwts.filter(({ settings: s }) => s.issuer === undefined || iss === undefined || s.issuer === iss);
  if (fit.length === 1) return fit[0]!;
  if (fit.length === 0) {
    throw new ApiError('invalid-jwt', 'Could not verify JWT: JWTNotInIssuer', { internal: { detail: `no configuration of --jwt-secrets has the issuer ${JSON.stringify(iss)}` } });
  }
  throw new ApiError('invalid-headers', 'Could not verify JWT: Multiple JWTs found', {
    internal: { detail: `${fit.length} configurations of --jwt-secrets are for this token (issuer ${iss === undefined ? 'absent' : JSON.stringify(iss)}); give each its own issuer` },
  });
}

/** The token's `iss` when its payload decodes to an object with a string `iss`, else undefined (as Hasura's `tokenIssuer`). */
function tokenIssuer(token: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: unknown } | null;
    return payload !== null && typeof payload === 'object' && typeof payload.iss === 'string' ? payload.iss : undefined;
  } catch {
    return undefined;
  }
}

function headerValue(headers: IncomingHttpHeaders | Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name && v !== undefined) return Array.isArray(v) ? v.join(',') : v;
  }
  return undefined;
}

/** Bytes of a raw request body (0 for one already parsed). */
function rawSize(body: unknown): number {
  return Buffer.isBuffer(body) ? body.length : typeof body === 'string' ? Buffer.byteLength(body) : 0;
}

/** The client's request as JSON for the POST-mode webhook; undefined when it is not JSON. */
function clientRequestJson(body: unknown): unknown {
  if (body === undefined || body === null) return undefined;
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    const text = body.toString();
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  return body;
}
