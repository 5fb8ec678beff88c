/**
 * The source's `customization` (Hasura v2's `sources[].customization`, kept in this engine's
 * document as `source_customization`): `naming_convention` (`hasura-default` / `graphql-default`)
 * decides the case of the GraphQL names generated from the database; `root_fields` `prefix` /
 * `suffix` rename the source's root fields, `namespace` puts them under one root field of that name
 * (`<namespace>_query`, `_mutation_frontend`, `_subscription` typed), `type_names` `prefix` / `suffix` every
 * type generated for its tables (none of these for `default`).
 */
import { NAMING_CONVENTION_ERROR, isNamingConvention } from '../../core/index.js';
import type { SourceCustomization } from './metadata.js';
import { asObject, parseError, rejectUnknownKeys } from './json.js';

export function decodeSourceCustomization(v: unknown, path: string): SourceCustomization {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['naming_convention', 'root_fields', 'type_names'], 'source customization', path);
  const out: SourceCustomization = {};
  const tn = o.type_names;
  if (tn !== undefined && tn !== null) {
    const names = nameParts(tn, `${path}.type_names`, 'type names customization');
    if (names) out.type_names = names;
  }
  const rf = o.root_fields;
  if (rf !== undefined && rf !== null) {
    const r = asObject(rf, `${path}.root_fields`);
    const names: NonNullable<SourceCustomization['root_fields']> = nameParts(rf, `${path}.root_fields`, 'root fields customization', ['namespace']) ?? {};
    const ns = r.namespace;
    if (ns !== undefined && ns !== null) {
      if (typeof ns !== 'string' || !GRAPHQL_NAME.test(ns) || ns.startsWith('__')) {
        throw parseError(`expected a GraphQL name, encountered ${JSON.stringify(ns)}`, `${path}.root_fields.namespace`);
      }
      names.namespace = ns;
    }
    if (names.namespace !== undefined || names.prefix !== undefined || names.suffix !== undefined) out.root_fields = names;
  }
  const nc = o.naming_convention;
  if (nc === undefined || nc === null) return out;
  if (!isNamingConvention(nc)) throw parseError(NAMING_CONVENTION_ERROR, `${path}.naming_convention`);
  return { naming_convention: nc, ...out };
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** `{prefix?, suffix?}` of GraphQL name parts (empty ones left out); undefined when neither is set. */
function nameParts(v: unknown, path: string, what: string, others: string[] = []): { prefix?: string; suffix?: string } | undefined {
  const r = asObject(v, path);
  rejectUnknownKeys(r, [...others, 'prefix', 'suffix'], what, path);
  const names: { prefix?: string; suffix?: string } = {};
  for (const k of ['prefix', 'suffix'] as const) {
    const x = r[k];
    if (x === undefined || x === null) continue;
    if (typeof x !== 'string' || !/^[_A-Za-z0-9]*$/.test(x) || (k === 'prefix' && /^[0-9]/.test(x))) {
      throw parseError(`expected a GraphQL name part, encountered ${JSON.stringify(x)}`, `${path}.${k}`);
    }
    if (x !== '') names[k] = x;
  }
  return names.prefix !== undefined || names.suffix !== undefined ? names : undefined;
}

/** As exported: undefined when nothing is set. */
export function encodeSourceCustomization(c: SourceCustomization | undefined): SourceCustomization | undefined {
  if (!c?.naming_convention && !c?.root_fields && !c?.type_names) return undefined;
  const out: SourceCustomization = {};
  if (c.naming_convention) out.naming_convention = c.naming_convention;
  if (c.root_fields) {
    const { namespace, prefix, suffix } = c.root_fields;
    out.root_fields = { ...(namespace !== undefined ? { namespace } : {}), ...(prefix !== undefined ? { prefix } : {}), ...(suffix !== undefined ? { suffix } : {}) };
  }
  if (c.type_names) out.type_names = { ...c.type_names };
  return out;
}
