/**
 * Test-side JWT signing with node:crypto: HS* with a shared secret, RS* with an RSA private key,
 * plus key-pair and JWK functions for the JWKS server. Tokens are built by hand so tests can also
 * forge bad ones (alg none, wrong alg, broken signature).
 */
import { createHmac, createPrivateKey, generateKeyPairSync, sign as rsaSign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

export type TestAlg = 'HS256' | 'HS384' | 'HS512' | 'RS256' | 'RS384' | 'RS512' | 'none';

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

export interface SignOptions {
  alg: TestAlg;
  /** Shared secret (HS*) or private key (RS*: KeyObject or PEM). */
  key?: string | KeyObject;
  kid?: string;
  header?: Record<string, unknown>;
}

export function signJwt(payload: Record<string, unknown>, opts: SignOptions): string {
  const header: Record<string, unknown> = { alg: opts.alg, typ: 'JWT', ...(opts.kid ? { kid: opts.kid } : {}), ...opts.header };
  const input = `${b64(header)}.${b64(payload)}`;
  if (opts.alg === 'none') return `${input}.`;
  const hash = `sha${opts.alg.slice(2)}`;
  let sig: Buffer;
  if (opts.alg.startsWith('HS')) {
    sig = createHmac(hash, opts.key as string).update(input).digest();
  } else {
    const key = typeof opts.key === 'string' ? createPrivateKey(opts.key) : (opts.key as KeyObject);
    sig = rsaSign(hash, Buffer.from(input), key);
  }
  return `${input}.${sig.toString('base64url')}`;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Claims under the default namespace with the given roles and extra session variables. */
export function svcClaims(opts: { allowed?: unknown; default?: unknown; vars?: Record<string, unknown>; ns?: string; stringify?: boolean }): Record<string, unknown> {
  const claims: Record<string, unknown> = { ...opts.vars };
  if (opts.allowed !== undefined) claims['x-svc-allowed-roles'] = opts.allowed;
  if (opts.default !== undefined) claims['x-svc-default-role'] = opts.default;
  const ns = opts.ns ?? 'https://svc.io/jwt/claims';
  return { sub: '1234567890', iat: nowSeconds(), exp: nowSeconds() + 3600, [ns]: opts.stringify ? JSON.stringify(claims) : claims };
}

export interface RsaPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicPem: string;
  /** The public key as a JWK with the given kid. */
  jwk(kid: string, alg?: string): Record<string, unknown>;
}

export function rsaPair(bits = 2048): RsaPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return {
    privateKey,
    publicKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    jwk: (kid, alg = 'RS256') => ({ ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' }),
  };
}
