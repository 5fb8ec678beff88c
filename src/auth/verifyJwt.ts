/**
 * Verifies a compact JWS token (RFC 7515/7519) with node:crypto and returns its payload.
 * Failures are `JwtError`s whose `reason` reads like Hasura's (Haskell `jose`) error values,
 * which it prints after "Could not verify JWT: " — `JWTExpired`, `JWSError JWSInvalidSignature`,
 * `JWTNotInAudience`, `JWTNotInIssuer` — with a plain-words detail where Hasura had none.
 *
 * Order (as `jose`'s verifyClaimsAt): decode, pick key by alg/kid, check the signature, then
 * exp, iat, nbf, iss, aud. `alg: none` and any alg other than the key's are refused. When an
 * audience or issuer is configured, a token without `aud` / `iss` is refused (DECISIONS 17).
 */
import { createHmac, timingSafeEqual, verify as rsaVerify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { algHash, isHmacAlg, isJwtAlg } from './jwtKeys.js';
import type { JwtAlg } from './jwtKeys.js';

export class JwtError extends Error {
  /** `reason` is what the client sees (Hasura's wording); `detail` says more, for logs and dev mode. */
  constructor(readonly reason: string, readonly detail?: string) {
    super(detail ? `${reason}: ${detail}` : reason);
    this.name = 'JwtError';
  }
  get expired(): boolean {
    return this.reason === 'JWTExpired';
  }
}

export interface JoseHeader {
  alg: string;
  kid?: string;
  [k: string]: unknown;
}

/** Gives the keys that may have signed a token with this header (throws `JwtError` when none). */
export type KeyResolver = (header: JoseHeader) => readonly KeyObject[];

export interface ClaimChecks {
  audience?: readonly string[];
  issuer?: string;
  leewaySeconds: number;
  /** Seconds since the epoch. */
  now: number;
}

export interface VerifiedJwt {
  header: JoseHeader;
  payload: Record<string, unknown>;
  /** `exp` as a Date, when the token has one (WebSocket connections close then). */
  expiresAt?: Date;
}

export function verifyJwt(token: string, resolveKeys: KeyResolver, checks: ClaimChecks): VerifiedJwt {
  const parts = token.split('.');
  if (parts.length !== 3) throw new JwtError(`JWSError (CompactDecodeError Invalid number of parts: Expected 3 parts; got ${parts.length})`);
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJsonPart(h, 'header');
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw new JwtError('JWSError (JSONDecodeError "the JWS header is not a JSON object")');
  const hdr = header as JoseHeader;
  if (typeof hdr.alg !== 'string') throw new JwtError('JWSError (JSONDecodeError "the JWS header has no \\"alg\\"")');
  if (hdr.alg === 'none' || hdr.alg.toLowerCase() === 'none') throw new JwtError('JWSError (AlgorithmMismatch "alg none is not accepted: tokens must be signed")');
  if (!isJwtAlg(hdr.alg)) throw new JwtError(`JWSError (AlgorithmMismatch "alg ${hdr.alg} is not supported")`);
  if (hdr.crit !== undefined) throw new JwtError('JWSError JWSCritUnprotected');

  const keys = resolveKeys(hdr);
  const signingInput = Buffer.from(`${h}.${p}`, 'ascii');
  const signature = Buffer.from(s, 'base64url');
  if (!keys.some((k) => checkSignature(hdr.alg as JwtAlg, k, signingInput, signature))) throw new JwtError('JWSError JWSInvalidSignature');

  const payload = decodeJsonPart(p, 'payload');
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new JwtError('JWTClaimsSetDecodeError "the payload is not a JSON object"');
  const claims = payload as Record<string, unknown>;
  const expiresAt = checkClaims(claims, checks);
  return { header: hdr, payload: claims, expiresAt };
}

function decodeJsonPart(part: string, what: string): unknown {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) throw new JwtError(`JWSError (CompactDecodeError Invalid text: the ${what} is not base64url)`);
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new JwtError(`JWSError (JSONDecodeError "the ${what} is not valid JSON")`);
  }
}

function checkSignature(alg: JwtAlg, key: KeyObject, input: Buffer, signature: Buffer): boolean {
  if (isHmacAlg(alg)) {
    if (key.type !== 'secret') return false;
    const expected = createHmac(algHash(alg), key).update(input).digest();
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  }
  if (key.type !== 'public') return false;
  try {
    return rsaVerify(algHash(alg), input, key, signature);
  } catch {
    return false;
  }
}

/**
 * A registered time claim: absent, or a NumericDate (RFC 7519 §2: a JSON number of seconds).
 * Present but `null`, a string, a boolean, an object or an array is refused, not ignored.
 */
function numericDate(claims: Record<string, unknown>, name: string): number | undefined {
  if (!Object.prototype.hasOwnProperty.call(claims, name)) return undefined;
  const v = claims[name];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new JwtError(`JWTClaimsSetDecodeError "${name} must be a NumericDate (seconds since the epoch)"`);
  return v;
}

function checkClaims(claims: Record<string, unknown>, c: ClaimChecks): Date | undefined {
  const exp = numericDate(claims, 'exp');
  const iat = numericDate(claims, 'iat');
  const nbf = numericDate(claims, 'nbf');
  const skew = Math.abs(c.leewaySeconds);
  if (exp !== undefined && c.now > exp + skew) throw new JwtError('JWTExpired');
  if (iat !== undefined && iat > c.now + skew) throw new JwtError('JWTIssuedAtFuture');
  if (nbf !== undefined && c.now < nbf - skew) throw new JwtError('JWTNotYetValid');
  if (c.issuer !== undefined && claims.iss !== c.issuer) throw new JwtError('JWTNotInIssuer');
  if (c.audience !== undefined) {
    const aud = claims.aud;
    const auds = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    if (!auds.some((a) => typeof a === 'string' && c.audience!.includes(a))) throw new JwtError('JWTNotInAudience');
  }
  return exp === undefined ? undefined : new Date(exp * 1000);
}
