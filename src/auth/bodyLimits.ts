/**
 * What a caller may make the engine parse, by what is known of them (docs/security.md):
 *
 * - before they are known to be allowed (a POST-mode auth webhook's request, a WebSocket message
 *   before `connection_init` is accepted, /v1/query and /v1/metadata without admin rights): at
 *   most `maxUnauthenticatedBodySize` bytes (64 KiB);
 * - an authenticated non-admin role: at most `maxNonAdminBodySize` bytes, and at most
 *   `maxNonAdminJsonValues` values nested at most `MAX_NON_ADMIN_JSON_DEPTH` deep, counted on the
 *   bytes before parsing (jsonShape): parse time follows the values, not the bytes;
 * - an admin: `maxAdminBodySize` bytes.
 *
 * Each check throws the `ApiError` the endpoint answers: 413 for a size or value count, the
 * "nested too deeply" validation error for depth.
 */
import { ApiError, errors } from '../core/index.js';
import type { ServerConfig } from '../config/index.js';
import { jsonShape, type JsonShape } from '../lib/index.js';

/** Deepest nesting of a non-admin body (GraphQL variables deeper than this are refused anyway). */
export const MAX_NON_ADMIN_JSON_DEPTH = 1000;

type Limits = Pick<ServerConfig, 'maxUnauthenticatedBodySize' | 'maxNonAdminBodySize' | 'maxNonAdminJsonValues'>;

export const bodyTooLarge = (limit: number, who: string): ApiError =>
  new ApiError('invalid-params', `request body is larger than ${limit} bytes (the limit ${who})`, { status: 413 });

/** Refuses a body over the bound for callers not yet known to be allowed. */
export function checkUnauthenticatedBody(config: Limits, size: number, who = 'before authentication'): void {
  if (size > config.maxUnauthenticatedBodySize) throw bodyTooLarge(config.maxUnauthenticatedBodySize, who);
}

/** Refuses a non-admin body by its size, then by its shape; returns the shape (a batch's length). */
export function checkNonAdminBody(config: Limits, body: Uint8Array): JsonShape {
  if (body.length > config.maxNonAdminBodySize) throw bodyTooLarge(config.maxNonAdminBodySize, 'for non-admin roles');
  const shape = jsonShape(body, config.maxNonAdminJsonValues, MAX_NON_ADMIN_JSON_DEPTH);
  if (shape.over === 'depth') throw errors.nestedTooDeeply();
  if (shape.over === 'values') {
    throw new ApiError('invalid-params', `request body holds more than ${config.maxNonAdminJsonValues} JSON values (the limit for non-admin roles)`, { status: 413 });
  }
  return shape;
}
