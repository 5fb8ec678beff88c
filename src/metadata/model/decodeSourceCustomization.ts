/**
 * The source's `customization` (Hasura v2's `sources[].customization`, kept in this engine's
 * document as `source_customization`): `naming_convention` (`hasura-default` / `graphql-default`)
 * decides the case of the GraphQL names generated from the database. Hasura's `root_fields` and
 * `type_names` prefixes are refused when set (they would rename the API; never dropped silently).
 */
import { ApiError, NAMING_CONVENTION_ERROR, isNamingConvention } from '../../core/index.js';
import type { SourceCustomization } from './metadata.js';
import { asObject, isObject, parseError, rejectUnknownKeys } from './json.js';

export function decodeSourceCustomization(v: unknown, path: string): SourceCustomization {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['naming_convention', 'root_fields', 'type_names'], 'source customization', path);
  for (const key of ['root_fields', 'type_names'] as const) {
    const given = o[key];
    if (given === undefined || given === null || (isObject(given) && Object.values(given).every((x) => x === null || x === undefined))) continue;
    throw new ApiError('not-supported', `source customization "${key}" is not supported; only "naming_convention" is`, { path: `${path}.${key}` });
  }
  const nc = o.naming_convention;
  if (nc === undefined || nc === null) return {};
  if (!isNamingConvention(nc)) throw parseError(NAMING_CONVENTION_ERROR, `${path}.naming_convention`);
  return { naming_convention: nc };
}

/** As exported: undefined when nothing is set. */
export function encodeSourceCustomization(c: SourceCustomization | undefined): SourceCustomization | undefined {
  return c?.naming_convention ? { naming_convention: c.naming_convention } : undefined;
}
