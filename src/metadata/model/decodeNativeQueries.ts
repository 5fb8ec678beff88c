/**
 * Hasura v2's logical models and native queries (`sources[].logical_models` / `native_queries`, the
 * `pg_track_logical_model` / `pg_track_native_query` arguments). Field types are accepted in each
 * spelling Hasura v2 has written: `{name, type: {scalar, nullable}}` (v2.28+, also `{array: …}`),
 * `{name, type: "int", nullable}` (v2.26) and the `{<name>: {type, nullable}}` map; they are stored in
 * the first. Type names are Postgres spellings (`integer`, `text[]`, `int4`), see `udtName`.
 */
import type { LogicalModelField, LogicalModelFieldType, LogicalModelMetadata, NativeQueryArgument, NativeQueryMetadata, NativeQueryRelationship } from './metadata.js';
import { arrayOf, asBool, asObject, asString, isObject, optional, parseError, rejectUnknownKeys, required, type JsonObject } from './json.js';
import { parseQualifiedName, pathKey } from '../../core/index.js';
import { decodePermissionDef } from './decodePermission.js';

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** SQL spellings → udt names (what casts and the GraphQL scalar mapping use). */
const ALIASES: Readonly<Record<string, string>> = {
  int: 'int4', integer: 'int4', smallint: 'int2', bigint: 'int8', serial: 'int4', bigserial: 'int8',
  real: 'float4', float: 'float8', 'double precision': 'float8', decimal: 'numeric',
  boolean: 'bool', 'character varying': 'varchar', character: 'bpchar', char: 'bpchar',
  'timestamp without time zone': 'timestamp', 'timestamp with time zone': 'timestamptz',
  'time without time zone': 'time', 'time with time zone': 'timetz',
};

/** The udt name of a Postgres type spelling (`integer` → `int4`, `text[]` → `_text`); a parse error when it is not a type name. */
export function udtName(type: string, path: string): string {
  const t = type.trim().toLowerCase().replace(/\s+/g, ' ');
  const m = /^([a-z_][a-z0-9_ ]*?)((?:\[\])*)$/.exec(t);
  if (!m || m[1].length === 0) throw parseError(`invalid type name ${JSON.stringify(type)}`, path);
  const base = ALIASES[m[1]] ?? m[1];
  if (!/^[a-z_][a-z0-9_]*$/.test(base)) throw parseError(`invalid type name ${JSON.stringify(type)}`, path);
  return m[2] ? `_${base}` : base;
}

function decodeFieldType(v: unknown, path: string, nullable: boolean | undefined): LogicalModelFieldType {
  if (typeof v === 'string') {
    udtName(v, path);
    return { scalar: v, nullable: nullable ?? true };
  }
  const o = asObject(v, path);
  const n = optional(o, 'nullable', path, asBool) ?? nullable ?? true;
  if ('scalar' in o) {
    const scalar = required(o, 'scalar', path, asString);
    udtName(scalar, `${path}.scalar`);
    return { scalar, nullable: n };
  }
  if ('array' in o) {
    const element = decodeFieldType(o.array, `${path}.array`, undefined);
    if ('array' in element && 'logical_model' in element.array) throw parseError('arrays of arrays of logical models are not supported', `${path}.array`);
    return { array: element, nullable: n };
  }
  if ('logical_model' in o) {
    const name = required(o, 'logical_model', path, asString);
    if (!GRAPHQL_NAME.test(name)) throw parseError(`logical model name ${JSON.stringify(name)} is not a valid GraphQL name`, `${path}.logical_model`);
    return { logical_model: name, nullable: n };
  }
  throw parseError('expected a field type with "scalar", "array" or "logical_model"', path);
}

/**
 * The logical model a field refers to (`{logical_model}`: an object, `{array: {logical_model}}`: an
 * array of them), or undefined for a scalar field (or an array of scalars).
 */
export function modelReference(t: LogicalModelFieldType): { model: string; kind: 'object' | 'array' } | undefined {
  if ('logical_model' in t) return { model: t.logical_model, kind: 'object' };
  if ('array' in t && 'logical_model' in t.array) return { model: t.array.logical_model, kind: 'array' };
  return undefined;
}

function decodeField(name: string, o: JsonObject, path: string): LogicalModelField {
  if (!GRAPHQL_NAME.test(name)) throw parseError(`field name ${JSON.stringify(name)} is not a valid GraphQL name`, path);
  const field: LogicalModelField = { name, type: decodeFieldType(o.type, `${path}.type`, optional(o, 'nullable', path, asBool)) };
  const description = optional(o, 'description', path, asString);
  if (description !== undefined) field.description = description;
  return field;
}

function decodeFields(v: unknown, path: string): LogicalModelField[] {
  const fields = Array.isArray(v)
    ? v.map((f, i) => {
        const o = asObject(f, `${path}[${i}]`);
        return decodeField(required(o, 'name', `${path}[${i}]`, asString), o, `${path}[${i}]`);
      })
    : Object.entries(asObject(v, path)).map(([name, f]) => decodeField(name, asObject(f, `${path}.${name}`), `${path}.${name}`));
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f.name)) throw parseError(`field ${JSON.stringify(f.name)} is declared twice`, path);
    seen.add(f.name);
  }
  if (fields.length === 0) throw parseError('a logical model needs at least one field', path);
  if (fields.every((f) => modelReference(f.type))) throw parseError('a logical model needs at least one field of a scalar type', path);
  return fields;
}

/** The udt name of a scalar field's type (`_int4` for an array of integers); see `modelReference` for the others. */
export function fieldUdt(t: LogicalModelFieldType, path = '$'): string {
  if ('logical_model' in t) throw parseError(`field of logical model ${JSON.stringify(t.logical_model)} has no Postgres type`, path);
  return 'scalar' in t ? udtName(t.scalar, path) : `_${fieldUdt(t.array, path).replace(/^_/, '')}`;
}

export function decodeLogicalModel(v: unknown, path: string): LogicalModelMetadata {
  const o = asObject(v, path);
  const name = required(o, 'name', path, asString);
  if (!GRAPHQL_NAME.test(name)) throw parseError(`logical model name ${JSON.stringify(name)} is not a valid GraphQL name`, `${path}.name`);
  const lm: LogicalModelMetadata = { name, fields: required(o, 'fields', path, decodeFields) };
  const description = optional(o, 'description', path, asString);
  if (description !== undefined) lm.description = description;
  const perms = optional(o, 'select_permissions', path, arrayOf((p, pp) => decodePermissionDef('select', p, pp)));
  if (perms && perms.length > 0) {
    lm.select_permissions = perms.map((p) => {
      const perm = p.permission as { columns: string[] | '*'; filter: Record<string, unknown> };
      const entry: NonNullable<LogicalModelMetadata['select_permissions']>[number] = { role: p.role, permission: { columns: perm.columns, filter: perm.filter } };
      if (p.comment) entry.comment = p.comment;
      return entry;
    });
  }
  return lm;
}

function decodeArgument(v: unknown, path: string): NativeQueryArgument {
  const o = asObject(v, path);
  const type = required(o, 'type', path, asString);
  udtName(type, `${path}.type`);
  const arg: NativeQueryArgument = { type, nullable: optional(o, 'nullable', path, asBool) ?? false };
  const description = optional(o, 'description', path, asString);
  if (description !== undefined) arg.description = description;
  return arg;
}

export function decodeNativeQuery(v: unknown, path: string): NativeQueryMetadata {
  const o = asObject(v, path);
  const root = required(o, 'root_field_name', path, asString);
  if (!GRAPHQL_NAME.test(root)) throw parseError(`root field name ${JSON.stringify(root)} is not a valid GraphQL name`, `${path}.root_field_name`);
  const argsObj = optional(o, 'arguments', path, asObject) ?? {};
  const args: Record<string, NativeQueryArgument> = {};
  for (const [name, a] of Object.entries(argsObj)) {
    if (!GRAPHQL_NAME.test(name)) throw parseError(`argument name ${JSON.stringify(name)} is not a valid GraphQL name`, `${path}.arguments`);
    args[name] = decodeArgument(a, `${path}.arguments.${name}`);
  }
  const type = optional(o, 'type', path, asString);
  if (type !== undefined && type !== 'query') throw parseError(`native queries of type ${JSON.stringify(type)} are not supported (only "query")`, `${path}.type`);
  const objectRels = optional(o, 'object_relationships', path, arrayOf(decodeRelationship));
  const arrayRels = optional(o, 'array_relationships', path, arrayOf(decodeRelationship));
  const names = new Set<string>();
  for (const r of [...(objectRels ?? []), ...(arrayRels ?? [])]) {
    if (names.has(r.name)) throw parseError(`The native query ${JSON.stringify(root)} has duplicate relationships: ${r.name}`, path);
    names.add(r.name);
  }
  const nq: NativeQueryMetadata = {
    root_field_name: root,
    code: required(o, 'code', path, asString),
    arguments: args,
    returns: required(o, 'returns', path, (x, p) => (isObject(x) ? required(x, 'name', p, asString) : asString(x, p))),
  };
  if (type !== undefined) nq.type = 'query';
  const description = optional(o, 'description', path, asString);
  if (description !== undefined) nq.description = description;
  if (objectRels && objectRels.length > 0) nq.object_relationships = objectRels;
  if (arrayRels && arrayRels.length > 0) nq.array_relationships = arrayRels;
  return nq;
}

/**
 * One relationship of a native query, Hasura v2's `RelDef (RelManualConfig)`: `{name, using:
 * {column_mapping, insertion_order, remote_table | remote_native_query}, comment}`. The table is
 * normalised to `{schema, name}`.
 */
function decodeRelationship(v: unknown, path: string): NativeQueryRelationship {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['name', 'using', 'comment'], 'relationship', path);
  const name = required(o, 'name', path, asString);
  if (!GRAPHQL_NAME.test(name)) throw parseError(`relationship name ${JSON.stringify(name)} is not a valid GraphQL name`, `${path}.name`);
  const u = required(o, 'using', path, asObject);
  const upath = `${path}.using`;
  rejectUnknownKeys(u, ['column_mapping', 'insertion_order', 'remote_table', 'remote_native_query'], 'relationship using', upath);
  const mapping = required(u, 'column_mapping', upath, asObject);
  const column_mapping = Object.fromEntries(Object.entries(mapping).map(([k, x]) => [k, asString(x, pathKey(`${upath}.column_mapping`, k))]));
  if (Object.keys(column_mapping).length === 0) throw parseError('column_mapping must map at least one column', `${upath}.column_mapping`);
  const using: NativeQueryRelationship['using'] = { column_mapping };
  const order = u.insertion_order;
  if (order === null) using.insertion_order = null;
  else if (order !== undefined) {
    if (order !== 'before_parent' && order !== 'after_parent') throw parseError('insertion_order must be "before_parent" or "after_parent"', `${upath}.insertion_order`);
    using.insertion_order = order;
  }
  const hasTable = u.remote_table !== undefined;
  const hasQuery = u.remote_native_query !== undefined;
  if (hasTable === hasQuery) throw parseError('expected exactly one of "remote_table" and "remote_native_query"', upath);
  if (hasTable) using.remote_table = parseQualifiedName(u.remote_table, `${upath}.remote_table`);
  else using.remote_native_query = required(u, 'remote_native_query', upath, asString);
  const rel: NativeQueryRelationship = { name, using };
  const comment = optional(o, 'comment', path, asString);
  if (comment !== undefined) rel.comment = comment;
  return rel;
}

/**
 * The pieces of a native query's code: SQL text and `{{name}}` placeholders, in order (a trailing
 * `;` is dropped, the code becomes a subquery). Unknown names are reported by the caller.
 */
export function splitNativeCode(code: string): Array<{ text: string } | { arg: string }> {
  const out: Array<{ text: string } | { arg: string }> = [];
  const body = code.replace(/[\s;]+$/, '');
  const re = /\{\{\s*([_A-Za-z][_0-9A-Za-z]*)\s*\}\}/g;
  let last = 0;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    if (m.index > last) out.push({ text: body.slice(last, m.index) });
    out.push({ arg: m[1] });
    last = m.index + m[0].length;
  }
  if (last < body.length) out.push({ text: body.slice(last) });
  return out;
}
