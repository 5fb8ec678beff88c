/**
 * Decoders for relationship definitions (object and array), as written in metadata and in
 * `create_object_relationship` / `create_array_relationship`. Table names are normalised to
 * `{schema, name}`; the `using` forms follow Hasura v1.3:
 *   object: `{foreign_key_constraint_on: "col"}` | `{foreign_key_constraint_on: {table, column}}` (Hasura v2: the
 *           foreign key is on the other table, pointing here — a one-to-one) | `{manual_configuration: {remote_table, column_mapping}}`
 *   array:  `{foreign_key_constraint_on: {table, column}}` | `{manual_configuration: …}`
 */
import { ApiError, parseQualifiedName, pathKey } from '../../core/index.js';
import type { RelationshipMetadata } from './metadata.js';
import { asObject, asString, isObject, optional, parseError, required } from './json.js';

export type RelType = 'object' | 'array';

function decodeColumnMapping(v: unknown, path: string): Record<string, string> {
  const o = asObject(v, path);
  // fromEntries, not assignment: a "__proto__" key stays a key (and then fails as an unknown column)
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, asString(x, pathKey(path, k))]));
}

function decodeManual(v: unknown, path: string) {
  const o = asObject(v, path);
  if ('remote_native_query' in o) throw new ApiError('not-supported', 'relationships from a table to a native query are not supported', { path: `${path}.remote_native_query` });
  return {
    remote_table: required(o, 'remote_table', path, parseQualifiedName),
    column_mapping: required(o, 'column_mapping', path, decodeColumnMapping),
  };
}

function decodeArrayFk(v: unknown, path: string) {
  const o = asObject(v, path);
  return {
    table: required(o, 'table', path, parseQualifiedName),
    column: required(o, 'column', path, asString),
  };
}

/** The `using` of a relationship of the given type. */
export function decodeRelUsing(type: RelType, v: unknown, path: string): RelationshipMetadata['using'] {
  if (!isObject(v)) throw parseError('expecting an object for relationship using', path);
  const fk = v.foreign_key_constraint_on;
  const manual = v.manual_configuration;
  const frag = 'one of foreign_key_constraint_on/manual_configuration should be present';
  if (fk === undefined && manual === undefined) throw parseError(`atleast ${frag}`, path);
  if (fk !== undefined && manual !== undefined) throw parseError(`only ${frag}`, path);
  if (fk !== undefined) {
    const p = pathKey(path, 'foreign_key_constraint_on');
    return { foreign_key_constraint_on: type === 'object' && !isObject(fk) ? asString(fk, p) : decodeArrayFk(fk, p) };
  }
  return { manual_configuration: decodeManual(manual, pathKey(path, 'manual_configuration')) };
}

/** `{name, using, comment?}`. */
export function decodeRelationship(type: RelType, v: unknown, path: string): RelationshipMetadata {
  const o = asObject(v, path);
  return {
    name: required(o, 'name', path, asString),
    using: required(o, 'using', path, (u, p) => decodeRelUsing(type, u, p)),
    comment: optional(o, 'comment', path, asString) ?? null,
  };
}
