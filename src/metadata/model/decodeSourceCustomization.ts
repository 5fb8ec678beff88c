/**
 * The source's `customization` (Hasura v2's `sources[].customization`, kept in this engine's
 * document as `source_customization`): `naming_convention` (`hasura-default` / `graphql-default`)
 * decides the case of the GraphQL names generated from the database; `root_fields` `prefix` /
 * `suffix` rename the source's root fields. Hasura's root-field `namespace` and `type_names` are
 * refused when set (never dropped silently).
 */
import { ApiError, NAMING_CONVENTION_ERROR, isNamingConvention } from '../../core/index.js';
import type { SourceCustomization } from './metadata.js';
import { asObject, isObject, parseError, rejectUnknownKeys } from './json.js';

export function decodeSourceCustomization(v: unknown, path: string): SourceCustomization {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['naming_convention', 'root_fields', 'type_names'], 'source customization', path);
  const out: SourceCustomization = {};
  const given = o.type_names;
  if (!(given === undefined || given === null || (isObject(given) && Object.values(given).every((x) => x === null || x === undefined)))) {
    throw new ApiError('not-supported', 'source customization "type_names" is not supported; "naming_convention" and the "root_fields" prefix and suffix are', { path: `${path}.type_names` });
  }
  const rf = o.root_fields;
  if (rf !== undefined && rf !== null) {
    const r = asObject(rf, `${path}.root_fields`);
    rejectUnknownKeys(r, ['namespace', 'prefix', 'suffix'], 'root fields customization', `${path}.root_fields`);
    if (r.namespace !== undefined && r.namespace !== null) {
      throw new ApiError('not-supported', 'the root fields "namespace" of a source customization is not supported; use "prefix" or "suffix"', { path: `${path}.root_fields.namespace` });
    }
    const names: { prefix?: string; suffix?: string } = {};
    for (const k of ['prefix', 'suffix'] as const) {
      const v = r[k];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string' || !/^[_A-Za-z0-9]*$/.test(v) || (k === 'prefix' && /^[0-9]/.test(v))) {
        throw parseError(`expected a GraphQL name part, encountered ${JSON.stringify(v)}`, `${path}.root_fields.${k}`);
      }
      if (v !== '') names[k] = v;
    }
    if (names.prefix !== undefined || names.suffix !== undefined) out.root_fields = names;
  }
  const nc = o.naming_convention;
  if (nc === undefined || nc === null) return out;
  if (!isNamingConvention(nc)) throw parseError(NAMING_CONVENTION_ERROR, `${path}.naming_convention`);
  return { naming_convention: nc, ...out };
}

/** As exported: undefined when nothing is set. */
export function encodeSourceCustomization(c: SourceCustomization | undefined): SourceCustomization | undefined {
  if (!c?.naming_convention && !c?.root_fields) return undefined;
  const out: SourceCustomization = {};
  if (c.naming_convention) out.naming_convention = c.naming_convention;
  if (c.root_fields) out.root_fields = { ...c.root_fields };
  return out;
}
