/**
 * Headers → Session, the single entry the endpoints call. It delegates to the config's
 * authenticator (authenticator.ts): the one `main` built at start with `createAuthenticator`
 * (registered here by that call), or, when none was built, one made on first use.
 *
 *   const session = await resolveSession(req.headers, ctx.config, req.body);
 *
 * `requestBody` (Buffer, text or parsed JSON) is only read by the POST-mode auth webhook.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../core/index.js';
import type { Session } from '../core/index.js';
import type { ServerConfig } from '../config/index.js';
import { createAuthenticator as buildAuthenticator } from './authenticator.js';
import type { AuthInfo, AuthResult, Authenticator, AuthenticatorOptions } from './authenticator.js';
import type { AuthLogger } from './authLogger.js';

const byConfig = new WeakMap<ServerConfig, Promise<Authenticator>>();
/** Authenticators already built, so a request does not wait on (or chain onto) the build promise. */
const ready = new WeakMap<ServerConfig, Authenticator>();

/**
 * Builds the authenticator for `config` (validating it; throws a one-line `AuthConfigError` the
 * caller prints before exiting) and registers it so `resolveSession(headers, config)` uses it.
 */
export function createAuthenticator(config: ServerConfig, logger?: AuthLogger, opts?: AuthenticatorOptions): Promise<Authenticator> {
  const p = buildAuthenticator(config, logger, opts);
  byConfig.set(config, p);
  ready.delete(config);
  p.catch(() => byConfig.delete(config));
  return p;
}

function authenticatorFor(config: ServerConfig): Promise<Authenticator> {
  let p = byConfig.get(config);
  if (!p) p = createAuthenticator(config);
  return p.then(
    (a) => {
      if (byConfig.get(config) === p) ready.set(config, a);
      return a;
    },
    (e: unknown) => {
      throw e instanceof ApiError ? e : new ApiError('unexpected', 'authentication is not configured correctly', { status: 500, internal: String(e) });
    },
  );
}

/** The request's session; throws `ApiError`s (access-denied, invalid-jwt, invalid-headers, …). */
export async function resolveSession(headers: IncomingHttpHeaders | Record<string, string>, config: ServerConfig, requestBody?: unknown): Promise<Session> {
  const built = ready.get(config);
  if (built) return built.resolveSession(headers, requestBody);
  return (await authenticatorFor(config)).resolveSession(headers, requestBody);
}

/** What the config API reports about authentication (admin secret, webhook, JWT namespace/format). */
export async function authInfo(config: ServerConfig): Promise<AuthInfo> {
  return (await authenticatorFor(config)).info;
}

/** Like `resolveSession`, plus when the credentials expire (JWT `exp`): WebSocket connections close then. */
export async function authenticate(headers: IncomingHttpHeaders | Record<string, string>, config: ServerConfig, requestBody?: unknown): Promise<AuthResult> {
  return (await authenticatorFor(config)).authenticate(headers, requestBody);
}
