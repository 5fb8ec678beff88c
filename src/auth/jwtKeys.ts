/**
 * Turns the key material of the JWT settings into node:crypto `KeyObject`s:
 * an HMAC shared secret (HS256/384/512, at least 32/48/64 characters as Hasura requires),
 * an RSA public key given as PEM (SPKI or PKCS#1) or as an X509 certificate, and RSA keys of
 * a JWK set (RFC 7517). EC, Ed25519 and private keys are refused with a message saying so.
 */
import { createPublicKey, createSecretKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

export const HMAC_ALGS = ['HS256', 'HS384', 'HS512'] as const;
export const RSA_ALGS = ['RS256', 'RS384', 'RS512'] as const;
export type JwtAlg = (typeof HMAC_ALGS)[number] | (typeof RSA_ALGS)[number];

export const isJwtAlg = (s: unknown): s is JwtAlg =>
  typeof s === 'string' && ((HMAC_ALGS as readonly string[]).includes(s) || (RSA_ALGS as readonly string[]).includes(s));
export const isHmacAlg = (alg: JwtAlg): boolean => alg.startsWith('HS');

/** Hash of an algorithm: HS256/RS256 → sha256. */
export const algHash = (alg: JwtAlg): string => `sha${alg.slice(2)}`;

const MIN_RSA_BITS = 2048;

/** A shared secret for an HS* algorithm; throws when it is shorter than the hash size. */
export function hmacKey(alg: JwtAlg, secret: string): KeyObject {
  const bytes = Buffer.from(secret, 'utf8');
  const min = Number(alg.slice(2)) / 8;
  if (bytes.length < min) {
    throw new Error(`Invalid JWK: Key size too small; should be atleast ${min} characters for ${alg} (got ${bytes.length})`);
  }
  return createSecretKey(bytes);
}

/** An RSA public key from a PEM public key or X509 certificate. */
export function rsaPublicKeyFromPem(pem: string): KeyObject {
  const text = pem.trim();
  if (/^ssh-(rsa|ed25519|dss)\s/.test(text) || text.includes('OPENSSH')) {
    throw new Error('Could not decode PEM: OpenSSH format is not supported; give a PEM public key (-----BEGIN PUBLIC KEY-----) or an X509 certificate');
  }
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    throw new Error('Could not decode PEM: a private key was given; the key must be the public key (-----BEGIN PUBLIC KEY-----) or an X509 certificate');
  }
  if (!text.includes('-----BEGIN')) throw new Error('Could not decode PEM: No pem found (expected -----BEGIN PUBLIC KEY----- or -----BEGIN CERTIFICATE-----)');
  let key: KeyObject;
  try {
    key = createPublicKey(text);
  } catch (e) {
    throw new Error(`Could not decode PEM: ${(e as Error).message}`);
  }
  return checkRsa(key, 'the key');
}

/** An RSA verification key from one JWK (`kty: RSA`); throws for other key types. */
export function rsaPublicKeyFromJwk(jwk: Record<string, unknown>): KeyObject {
  if (jwk.kty !== 'RSA') throw new Error(`key type ${JSON.stringify(jwk.kty)} is not supported (only RSA keys are)`);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: { kty: 'RSA', n: jwk.n as string, e: jwk.e as string }, format: 'jwk' });
  } catch (e) {
    throw new Error(`invalid RSA JWK: ${(e as Error).message}`);
  }
  return checkRsa(key, 'the JWK');
}

function checkRsa(key: KeyObject, what: string): KeyObject {
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    throw new Error(`EC keys are not supported: ${what} is an EC public key; use an RSA key with RS256/RS384/RS512 or a shared secret with HS256/HS384/HS512`);
  }
  if (type !== 'rsa') throw new Error(`This key type is not supported: ${what} is ${type}; only RSA public keys are`);
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS) throw new Error(`Invalid JWK: RSA key size too small (${bits} bits); should be at least ${MIN_RSA_BITS} bits`);
  return key;
}
