/**
 * Schema-cache steps for remote schemas and remote relationships. Remote schemas are resolved from
 * their fetched introspections (an input of the build: the build itself does no I/O); one whose
 * fetch failed, or whose root fields clash with an earlier remote's, is inconsistent and left out,
 * so an unreachable remote never stops the rest of the schema. Remote relationships are checked
 * as Hasura v1.3 does (remote schema, join columns, remote field path, argument names and types).
 */
import type { IntrospectionInputTypeRef, IntrospectionInputValue, IntrospectionObjectType, IntrospectionType, IntrospectionTypeRef } from 'graphql';
import { pgScalarName } from '../../core/index.js';
import { resolveHeaders, resolveUrlConf } from '../../webhooks/index.js';
import type { TableMetadata } from '../model/metadata.js';
import { remoteSchemasOf, toRemoteSchema, type RemoteFieldTree, type RemoteRelationshipMetadata, type RemoteSchemaMetadata } from '../model/decodeRemoteSchema.js';
import { isObject } from '../model/json.js';
import { BuildError, quoted } from './buildState.js';
import type { RemoteFieldStep, RemoteIntrospection, RemoteRelInfo, RemoteSchemaInfo, TableInfo } from './types.js';
import type { SchemaRef } from './objects.js';
import { customizedRootFieldNames, remoteCustomizer } from './remoteCustomization.js';

export const DEFAULT_REMOTE_TIMEOUT_SECONDS = 60;

/** The URL a definition points at (`url`, or the value of `url_from_env`). */
export function remoteSchemaUrl(rs: RemoteSchemaMetadata, env: NodeJS.ProcessEnv = process.env): string {
  const url = rs.definition.url;
  if (typeof url === 'string') return url;
  // Hasura's `{from_env}` URL form (UrlConf): `environment variable 'X' not set`, as its `getEnv`.
  if (url !== undefined) {
    const r = resolveUrlConf(url, env);
    if (r.missing.length > 0) throw new BuildError(`environment variable '${r.missing[0]}' not set`);
    return r.url;
  }
  const name = rs.definition.url_from_env ?? '';
  const v = env[name];
  if (v === undefined || v === '') throw new BuildError(`environment variable ${quoted(name)} not set`);
  return v;
}

/** Root field names a remote adds to the engine's schema (query and mutation; customized: see remoteCustomization.ts). */
export function remoteRootFieldNames(info: RemoteSchemaInfo): { query: string[]; mutation: string[] } {
  return customizedRootFieldNames(info);
}

function rootObject(types: Map<string, IntrospectionType>, ref: { name: string } | null | undefined): IntrospectionObjectType | null {
  const t = ref ? types.get(ref.name) : undefined;
  return t && t.kind === 'OBJECT' ? t : null;
}

/** One remote schema from its introspection; throws BuildError when it cannot be used. */
export function resolveRemoteSchema(rs: RemoteSchemaMetadata, input: RemoteIntrospection | undefined, env: NodeJS.ProcessEnv = process.env): RemoteSchemaInfo {
  const url = remoteSchemaUrl(rs, env);
  const { headers, missing } = resolveHeaders(rs.definition.headers ?? [], env);
  if (missing.length > 0) throw new BuildError(`environment variable ${quoted(missing[0])} not set`);
  if (!input) throw new BuildError('remote schema was not fetched');
  if (!input.result.ok) throw new BuildError(input.result.message);
  const introspection = input.result.introspection;
  const types = new Map(introspection.__schema.types.map((t) => [t.name, t]));
  const customizer = remoteCustomizer(rs.definition.customization, introspection, types);
  return {
    ...(customizer ? { customizer } : {}),
    name: rs.name,
    metadata: rs,
    url,
    headers: headers.map((h) => ({ name: h.name, value: h.value })),
    forwardClientHeaders: rs.definition.forward_client_headers ?? false,
    timeoutSeconds: rs.definition.timeout_seconds ?? DEFAULT_REMOTE_TIMEOUT_SECONDS,
    introspection,
    types,
    queryRoot: rootObject(types, introspection.__schema.queryType),
    mutationRoot: rootObject(types, introspection.__schema.mutationType),
  };
}

/** Root fields of `info` that an earlier remote already defines ("" when none). */
export function remoteConflict(info: RemoteSchemaInfo, earlier: Iterable<RemoteSchemaInfo>): string {
  const mine = remoteRootFieldNames(info);
  for (const other of earlier) {
    const theirs = remoteRootFieldNames(other);
    const q = mine.query.filter((n) => theirs.query.includes(n));
    const m = mine.mutation.filter((n) => theirs.mutation.includes(n));
    if (q.length > 0 || m.length > 0) {
      return `conflicting root fields with remote schema ${quoted(other.name)}: ${[...q, ...m].map(quoted).join(', ')}`;
    }
  }
  return '';
}

/** Every remote schema of the metadata, consistent ones in the map, the others reported. */
export function resolveRemoteSchemas(
  list: readonly RemoteSchemaMetadata[], inputs: ReadonlyMap<string, RemoteIntrospection>,
  report: (rs: RemoteSchemaMetadata, reason: string) => void,
): Map<string, RemoteSchemaInfo> {
  const out = new Map<string, RemoteSchemaInfo>();
  for (const rs of list) {
    try {
      const info = resolveRemoteSchema(rs, inputs.get(rs.name));
      const conflict = remoteConflict(info, out.values());
      if (conflict) throw new BuildError(conflict);
      out.set(rs.name, info);
    } catch (e) {
      if (!(e instanceof BuildError)) throw e;
      report(rs, e.message);
    }
  }
  return out;
}

export { remoteSchemasOf };

const unwrapNonNull = (t: IntrospectionTypeRef): IntrospectionTypeRef => (t.kind === 'NON_NULL' ? t.ofType : t);
const namedOf = (t: IntrospectionTypeRef): string => {
  let x: IntrospectionTypeRef = t;
  while (x.kind === 'NON_NULL' || x.kind === 'LIST') x = x.ofType;
  return x.name;
};
const showType = (t: IntrospectionTypeRef): string =>
  t.kind === 'NON_NULL' ? `${showType(t.ofType)}!` : t.kind === 'LIST' ? `[${showType(t.ofType)}]` : t.name;

/** The join columns a template may name (`$col`): column → Postgres type. */
type JoinColumns = ReadonlyMap<string, string>;

/** Nesting depth of list types (non-null markers ignored), and the named type inside. */
function listDepth(t: IntrospectionTypeRef): { depth: number; name: string } {
  let depth = 0;
  let x: IntrospectionTypeRef = t;
  while (x.kind === 'NON_NULL' || x.kind === 'LIST') {
    if (x.kind === 'LIST') depth++;
    x = x.ofType;
  }
  return { depth, name: x.name };
}

/** GraphQL scalars a column may be joined to an `ID` argument from (Hasura v2's `IDTypeJoin`). */
const ID_SOURCES = new Set(['ID', 'Int', 'String', 'uuid']);

/**
 * A `$col` variable against the argument's type, as Hasura's `isTypeCoercible`: the column's GraphQL
 * scalar must be the argument's named type (or feed an `ID`), at the same list depth or as a single
 * value for a list. `expected type "Int" but got "String"` otherwise.
 */
function checkColumnVariable(pgType: string, type: IntrospectionInputTypeRef): void {
  const actual = pgScalarName(pgType);
  const expected = listDepth(type);
  const same = actual === expected.name || (expected.name === 'ID' && ID_SOURCES.has(actual));
  if (!same) throw new BuildError(`expected type ${quoted(expected.name)} but got ${quoted(actual)}`);
}

/** Checks an argument value of the template against the remote's input type. */
function checkValue(v: unknown, type: IntrospectionInputTypeRef, types: Map<string, IntrospectionType>, fields: JoinColumns, path: string): void {
  if (typeof v === 'string' && v.startsWith('$')) {
    const col = v.slice(1);
    const pgType = fields.get(col);
    if (pgType === undefined) throw new BuildError(`the variable ${quoted(col)} at ${path} is not one of hasura_fields`);
    checkColumnVariable(pgType, type);
    return;
  }
  if (v === null) {
    if (type.kind === 'NON_NULL') throw new BuildError(`null given for the non-null type ${showType(type)} at ${path}`);
    return;
  }
  const t = unwrapNonNull(type) as IntrospectionInputTypeRef;
  if (t.kind === 'LIST') {
    const items = Array.isArray(v) ? v : [v];
    items.forEach((x, i) => checkValue(x, t.ofType as IntrospectionInputTypeRef, types, fields, `${path}[${i}]`));
    return;
  }
  if (Array.isArray(v)) throw new BuildError(`expected a value of type ${showType(type)} at ${path}, but found a list`);
  const named = types.get(namedOf(t));
  if (!named) throw new BuildError(`unknown type ${quoted(namedOf(t))} at ${path}`);
  if (named.kind === 'INPUT_OBJECT') {
    if (!isObject(v)) throw new BuildError(`expected an object of type ${named.name} at ${path}`);
    for (const [k, x] of Object.entries(v)) {
      const f = named.inputFields.find((i) => i.name === k);
      if (!f) throw new BuildError(`field ${quoted(k)} not found in input type ${named.name} at ${path}`);
      checkValue(x, f.type, types, fields, `${path}.${k}`);
    }
    return;
  }
  if (named.kind === 'ENUM') {
    if (typeof v !== 'string' || !named.enumValues.some((e) => e.name === v)) throw new BuildError(`expected a value of enum ${named.name} at ${path}`);
    return;
  }
  const ok = (() => {
    switch (named.name) {
      case 'Int': return typeof v === 'number' && Number.isInteger(v);
      case 'Float': return typeof v === 'number';
      case 'String': return typeof v === 'string';
      case 'Boolean': return typeof v === 'boolean';
      case 'ID': return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
      default: return !isObject(v);
    }
  })();
  if (!ok) throw new BuildError(`expected a value of type ${showType(type)} at ${path}, but found ${JSON.stringify(v)}`);
}

function checkArguments(args: Record<string, unknown>, params: readonly IntrospectionInputValue[], types: Map<string, IntrospectionType>, fields: JoinColumns, path: string): void {
  for (const [name, v] of Object.entries(args)) {
    const p = params.find((x) => x.name === name);
    if (!p) throw new BuildError(`argument ${quoted(name)} not found in remote field at ${path}`);
    checkValue(v, p.type, types, fields, `${path}.${name}`);
  }
}

/** The remote field path of a relationship, checked against the remote schema. */
export function remoteFieldPath(tree: RemoteFieldTree, remote: RemoteSchemaInfo, hasuraFields: JoinColumns): RemoteFieldStep[] {
  const steps: RemoteFieldStep[] = [];
  let parent: IntrospectionObjectType | null = remote.queryRoot;
  let node: RemoteFieldTree | undefined = tree;
  let path = 'remote_field';
  while (node) {
    const [name] = Object.keys(node);
    const step: RemoteFieldTree[string] = node[name];
    path = `${path}.${name}`;
    if (!parent) throw new BuildError(`field ${quoted(name)} cannot be selected: its parent is not an object type`);
    const def = parent.fields.find((f) => f.name === name);
    if (!def) throw new BuildError(`field ${quoted(name)} not found in remote type ${quoted(parent.name)}`);
    checkArguments(step.arguments ?? {}, def.args, remote.types, hasuraFields, `${path}.arguments`);
    steps.push({ name, arguments: step.arguments ?? {} });
    const next = remote.types.get(namedOf(def.type));
    parent = next && next.kind === 'OBJECT' ? next : null;
    node = step.field;
  }
  return steps;
}

/** One remote relationship of `table` (BuildError when invalid) and the columns it depends on. */
export function resolveRemoteRelationship(
  table: TableInfo, tm: TableMetadata, rel: RemoteRelationshipMetadata, remotes: ReadonlyMap<string, RemoteSchemaInfo>,
): { info: RemoteRelInfo; dependencies: SchemaRef[] } {
  const d = toRemoteSchema(rel)!;
  const remote = remotes.get(d.remote_schema);
  if (!remote) throw new BuildError(`remote schema with name ${quoted(d.remote_schema)} does not exist`);
  for (const c of d.hasura_fields) {
    if (!table.columnsByName.has(c)) throw new BuildError(`no such column exists: ${quoted(c)}`);
  }
  const path = remoteFieldPath(d.remote_field, remote, new Map(d.hasura_fields.map((c) => [c, table.columnsByName.get(c)!.pgType])));
  return {
    info: {
      name: rel.name,
      remoteSchema: remote.name,
      hasuraFields: [...d.hasura_fields],
      path,
      lhsIdentifier: `${tm.table.schema}_${tm.table.name}`,
    },
    dependencies: [{ kind: 'table', table: table.name }, ...d.hasura_fields.map((column): SchemaRef => ({ kind: 'column', table: table.name, column }))],
  };
}
