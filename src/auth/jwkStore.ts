/**
 * The JWK set behind `jwk_url` (SPEC "JWK rotation"): fetched once at start (failure is fatal),
 * then refreshed after the time the response's Cache-Control max-age / s-maxage (else Expires)
 * gives. No time at start → never refreshed. While refreshing, a response without a usable time,
 * or a failed fetch, → try again after one minute; a failed fetch keeps the last good keys, so a
 * JWKS server that is down never stops the engine. Tokens pick their key by `kid`.
 */
import type { KeyObject } from 'node:crypto';
import { expiryFromHeaders } from './cacheExpiry.js';
import { rsaPublicKeyFromJwk, RSA_ALGS } from './jwtKeys.js';
import { AuthConfigError } from './jwtSettings.js';
import { JwtError } from './verifyJwt.js';
import type { JoseHeader } from './verifyJwt.js';
import type { AuthLogger } from './authLogger.js';

export interface JwkEntry {
  kid?: string;
  alg?: string;
  key: KeyObject;
}

export interface JwkStoreOptions {
  /** Delay before the next try when a refresh gives no time or fails (default 60 000 ms). */
  retryMs?: number;
  /** Timeout of one fetch (default 10 000 ms). */
  fetchTimeoutMs?: number;
  /** Shortest delay between refreshes, whatever max-age says (default 1 000 ms). */
  minRefreshMs?: number;
}

const MAX_TIMER_MS = 2_147_000_000; // setTimeout's limit (~24.8 days)

export class JwkStore {
  private entries: JwkEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly retryMs: number;
  private readonly fetchTimeoutMs: number;
  private readonly minRefreshMs: number;
  /** Number of completed fetches (tests and logs). */
  fetches = 0;

  private constructor(
    readonly url: string,
    private readonly logger: AuthLogger,
    opts: JwkStoreOptions,
  ) {
    this.retryMs = opts.retryMs ?? 60_000;
    this.fetchTimeoutMs = opts.fetchTimeoutMs ?? 10_000;
    this.minRefreshMs = opts.minRefreshMs ?? 1_000;
  }

  /** Fetches the keys; throws `AuthConfigError` when the first fetch fails. */
  static async start(url: string, logger: AuthLogger, opts: JwkStoreOptions = {}): Promise<JwkStore> {
    const store = new JwkStore(url, logger, opts);
    let seconds: number | undefined;
    try {
      seconds = await store.refresh();
    } catch (e) {
      throw new AuthConfigError(`Fatal Error: --jwt-secret (SVC_GRAPHQL_JWT_SECRET): could not fetch the JWK set from jwk_url ${url}: ${(e as Error).message}`);
    }
    if (seconds === undefined) {
      logger.info({ type: 'jwk-refresh-log', url }, 'JWK set response has no Cache-Control max-age/s-maxage or Expires time: the keys are never refreshed');
    } else {
      store.schedule(seconds * 1000);
    }
    return store;
  }

  get keys(): readonly JwkEntry[] {
    return this.entries;
  }

  /** Keys for a token header: by `kid` when the token names one, else every key fit for the alg. */
  readonly resolve = (header: JoseHeader): readonly KeyObject[] => {
    if (!(RSA_ALGS as readonly string[]).includes(header.alg)) {
      throw new JwtError('JWSError JWSInvalidSignature', `a ${header.alg} token cannot be verified with the RSA keys of jwk_url`);
    }
    const fit = this.entries.filter((e) => e.alg === undefined || e.alg === header.alg);
    const chosen = typeof header.kid === 'string' ? fit.filter((e) => e.kid === header.kid) : fit;
    if (chosen.length === 0) {
      const which = typeof header.kid === 'string' ? `no key with kid "${header.kid}"` : 'no key';
      throw new JwtError(`JWSError NoUsableKeys (${which} for ${header.alg} in the JWK set of ${this.url})`);
    }
    return chosen.map((e) => e.key);
  };

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    const delay = Math.min(Math.max(ms, this.minRefreshMs), MAX_TIMER_MS);
    this.timer = setTimeout(() => void this.cycle(), delay);
    this.timer.unref();
  }

  private async cycle(): Promise<void> {
    let seconds: number | undefined;
    try {
      seconds = await this.refresh();
      if (seconds === undefined) {
        this.logger.info({ type: 'jwk-refresh-log', url: this.url }, `JWK set response has no usable expiry; retrying again in ${this.retryMs / 1000} secs`);
      }
    } catch (e) {
      this.logger.error({ type: 'jwk-refresh-log', url: this.url, error: (e as Error).message }, `refreshing the JWK set failed; keeping the last good keys, retrying again in ${this.retryMs / 1000} secs`);
    }
    this.schedule(seconds === undefined ? this.retryMs : seconds * 1000);
  }

  /** One fetch; replaces the keys on success and returns the refresh time in seconds. */
  private async refresh(): Promise<number | undefined> {
    this.logger.info({ type: 'jwk-refresh-log', url: this.url }, `refreshing JWK from endpoint: ${this.url}`);
    let res: Response;
    try {
      res = await fetch(this.url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.fetchTimeoutMs) });
    } catch (e) {
      const cause = (e as { cause?: { message?: string } }).cause?.message;
      throw new Error(`Error fetching JWK: ${(e as Error).message}${cause ? ` (${cause})` : ''}`);
    }
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw new Error(`Non-2xx response on fetching JWK from: ${this.url} (HTTP ${res.status})`);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new Error(`Error parsing JWK from url: ${this.url}: not JSON`);
    }
    const list = (doc as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(list)) throw new Error(`Error parsing JWK from url: ${this.url}: expected an object with a "keys" array`);
    const entries: JwkEntry[] = [];
    for (const [i, k] of list.entries()) {
      const jwk = (k ?? {}) as Record<string, unknown>;
      const label = typeof jwk.kid === 'string' ? `kid "${jwk.kid}"` : `#${i}`;
      if (jwk.use !== undefined && jwk.use !== 'sig') continue;
      if (jwk.alg !== undefined && !(RSA_ALGS as readonly unknown[]).includes(jwk.alg)) {
        this.logger.warn({ type: 'jwk-refresh-log', url: this.url }, `JWK ${label} skipped: alg ${String(jwk.alg)} is not supported (EC keys are not supported; use RS256/RS384/RS512)`);
        continue;
      }
      try {
        entries.push({ kid: typeof jwk.kid === 'string' ? jwk.kid : undefined, alg: jwk.alg as string | undefined, key: rsaPublicKeyFromJwk(jwk) });
      } catch (e) {
        this.logger.warn({ type: 'jwk-refresh-log', url: this.url }, `JWK ${label} skipped: ${(e as Error).message}`);
      }
    }
    if (entries.length === 0) this.logger.warn({ type: 'jwk-refresh-log', url: this.url }, `the JWK set at ${this.url} has no usable RSA signing key`);
    this.entries = entries;
    this.fetches++;
    return expiryFromHeaders(res.headers.get('cache-control'), res.headers.get('expires'));
  }
}
