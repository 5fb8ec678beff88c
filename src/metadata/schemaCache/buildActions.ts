/**
 * Custom types and actions resolved against the tracked tables (Hasura v1.3
 * `validateCustomTypeDefinitions` and `resolveAction`). Custom types are validated as one object
 * (the whole set, as `set_custom_types` replaces it): any error makes the set inconsistent and the
 * build goes on without custom types. Each action is then checked on its own (argument and output
 * types, handler and header env variables); a bad one is left out, not the engine.
 */
import { qualifiedKey } from '../../core/index.js';
import { resolveHeaders, resolveUrlConf } from '../../webhooks/index.js';
import {
  actionsOf, customTypesDefinition, customTypesOf,
  type ActionMetadata, type CustomObject, type CustomTypes,
} from '../model/decodeActions.js';
import type { Metadata } from '../model/metadata.js';
import type { ActionInfo, ActionOutputScalar, CustomObjectInfo, CustomTypesInfo, TypeRef } from './actionTypes.js';
import { quoted, quotedTable, type BuildState } from './buildState.js';
import type { TableInfo } from './types.js';
import { duplicateValues } from '../../lib/index.js';

const DEFAULT_SCALARS = ['Int', 'Float', 'String', 'Boolean', 'ID'];
/** Postgres base types a custom type may name (besides any type of a tracked column). */
const PG_BASE_TYPES = [
  'int2', 'int4', 'int8', 'smallint', 'integer', 'bigint', 'float4', 'float8', 'numeric', 'bool', 'text', 'varchar', 'bpchar', 'char', 'name',
  'uuid', 'json', 'jsonb', 'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'interval', 'bytea', 'inet', 'cidr', 'macaddr', 'money',
  'oid', 'point', 'line', 'lseg', 'box', 'path', 'polygon', 'circle', 'xml', 'tsvector', 'tsquery', 'bit', 'varbit', 'citext', 'ltree',
];
/** Suffixes of the types generated for each table (a custom type may not reuse those names). */
const TABLE_TYPE_SUFFIXES = [
  '', '_aggregate', '_aggregate_fields', '_bool_exp', '_order_by', '_insert_input', '_obj_rel_insert_input', '_arr_rel_insert_input',
  '_on_conflict', '_constraint', '_update_column', '_select_column', '_set_input', '_inc_input', '_mutation_response', '_pk_columns_input',
];

/** Parses a GraphQL type string; undefined when it is not one. */
export function parseTypeRef(s: string): TypeRef | undefined {
  let t = s.trim();
  let nonNull = false;
  if (t.endsWith('!')) {
    nonNull = true;
    t = t.slice(0, -1).trim();
  }
  if (t.startsWith('[') && t.endsWith(']')) {
    const of = parseTypeRef(t.slice(1, -1));
    return of ? { kind: 'list', of, nonNull } : undefined;
  }
  return /^[_A-Za-z][_0-9A-Za-z]*$/.test(t) ? { kind: 'named', name: t, nonNull } : undefined;
}

export const baseName = (t: TypeRef): string => (t.kind === 'named' ? t.name : baseName(t.of));

const emptyInfo = (): CustomTypesInfo => ({ defs: {}, objects: new Map(), inputNames: new Set(DEFAULT_SCALARS), pgScalars: new Set() });

/** Postgres types known by name: the base types above and every column type of a tracked table. */
function knownPgTypes(tables: Map<string, TableInfo>): Set<string> {
  const s = new Set(PG_BASE_TYPES);
  for (const t of tables.values()) for (const c of t.columns) s.add(c.pgType);
  return s;
}

/** A reason the custom types are invalid, in Hasura's wording, and the types it makes unusable. */
interface TypeError { types: string[]; message: string }

/** The reasons the custom types are invalid (empty when valid). */
function validateCustomTypes(ct: CustomTypes, tables: Map<string, TableInfo>, pg: Set<string>, info: CustomTypesInfo): TypeError[] {
  const errs: TypeError[] = [];
  const scalars = new Set([...(ct.scalars ?? []).map((s) => s.name), ...DEFAULT_SCALARS]);
  const enums = new Set((ct.enums ?? []).map((e) => e.name));
  const inputs = new Set((ct.input_objects ?? []).map((i) => i.name));
  const objects = new Set((ct.objects ?? []).map((o) => o.name));
  const all = [...(ct.scalars ?? []).map((s) => s.name), ...enums, ...(ct.input_objects ?? []).map((i) => i.name), ...(ct.objects ?? []).map((o) => o.name)];
  const dupTypes = duplicateValues(all);
  if (dupTypes.length) errs.push({ types: dupTypes, message: `duplicate type names: ${dupTypes.map(quoted).join(', ')}` });
  // The names the tables' types take, only when there are custom types to compare (thousands of tables).
  const generated = new Map<string, TableInfo>();
  if (all.length > 0) for (const t of tables.values()) for (const sfx of TABLE_TYPE_SUFFIXES) generated.set(t.gqlName + sfx, t);
  for (const n of new Set(all)) {
    const t = generated.get(n);
    if (t) errs.push({ types: [n], message: `the type ${quoted(n)} conflicts with a type generated for the table ${quotedTable(t.name)}` });
  }
  for (const e of ct.enums ?? []) {
    const vals = e.values.map((v) => v.value);
    const d = duplicateValues(vals);
    if (d.length) errs.push({ types: [e.name], message: `the enum type ${quoted(e.name)} has duplicate values: ${d.map(quoted).join(', ')}` });
  }
  const pgUse = (name: string) => {
    if (!pg.has(name)) return false;
    info.pgScalars.add(name);
    return true;
  };
  for (const io of ct.input_objects ?? []) {
    const names = io.fields.map((f) => f.name);
    const d = duplicateValues(names);
    if (d.length) errs.push({ types: [io.name], message: `the input object ${quoted(io.name)} has duplicate fields: ${d.map(quoted).join(', ')}` });
    for (const f of io.fields) {
      const t = parseTypeRef(f.type);
      const b = t ? baseName(t) : f.type;
      if (!t || !(scalars.has(b) || enums.has(b) || inputs.has(b) || pgUse(b))) {
        errs.push({ types: [io.name], message: `the type ${quoted(b)} for field ${quoted(f.name)} in  input object type ${quoted(io.name)} does not exist` });
      }
    }
  }
  for (const o of ct.objects ?? []) errs.push(...validateObject(o, { scalars, enums, objects, pgUse, tables }).map((message) => ({ types: [o.name], message })));
  return errs;
}

function validateObject(
  o: CustomObject,
  env: { scalars: Set<string>; enums: Set<string>; objects: Set<string>; pgUse: (n: string) => boolean; tables: Map<string, TableInfo> },
): string[] {
  const errs: string[] = [];
  const rels = o.relationships ?? [];
  const names = [...o.fields.map((f) => f.name), ...rels.map((r) => r.name)];
  const d = duplicateValues(names);
  if (d.length) errs.push(`the object ${quoted(o.name)} has duplicate fields: ${d.map(quoted).join(', ')}`);
  const scalarFields = new Map<string, { list: boolean }>();
  for (const f of o.fields) {
    if (f.arguments !== undefined && f.arguments !== null) errs.push(`the object ${quoted(o.name)} can't have arguments`);
    const t = parseTypeRef(f.type);
    const b = t ? baseName(t) : f.type;
    // Hasura v2 lets a field have another object type (a nested object); v1.3 refused it.
    if (t && env.objects.has(b)) continue;
    if (!t || !(env.scalars.has(b) || env.enums.has(b) || env.pgUse(b))) {
      errs.push(`the type ${quoted(b)} for field ${quoted(f.name)} in  object type ${quoted(o.name)} does not exist`);
    } else if (!env.enums.has(b)) scalarFields.set(f.name, { list: isList(t) });
  }
  for (const r of rels) {
    if (r.source !== undefined && r.source !== 'default') {
      // Another source's table: checked once every source is built (metadata/sourceRelationships.ts).
      for (const field of Object.keys(r.field_mapping)) {
        const sf = scalarFields.get(field);
        if (!sf) errs.push(`the field ${quoted(field)} for relationship ${quoted(r.name)} in object type ${quoted(o.name)} does not exist`);
        else if (sf.list) errs.push(`the type of the field ${quoted(field)} for relationship ${quoted(r.name)} in object type ${quoted(o.name)} is a list type`);
      }
      continue;
    }
    const table = env.tables.get(qualifiedKey(r.remote_table));
    if (!table) {
      errs.push(`the remote table ${quotedTable(r.remote_table)} for relationship ${quoted(r.name)} of object type ${quoted(o.name)} does not exist`);
      continue;
    }
    for (const [field, column] of Object.entries(r.field_mapping)) {
      const sf = scalarFields.get(field);
      if (!sf) errs.push(`the field ${quoted(field)} for relationship ${quoted(r.name)} in object type ${quoted(o.name)} does not exist`);
      else if (sf.list) errs.push(`the type of the field ${quoted(field)} for relationship ${quoted(r.name)} in object type ${quoted(o.name)} is a list type`);
      if (!table.columnsByName.has(column)) {
        errs.push(`the column ${quoted(column)} of remote table ${quotedTable(r.remote_table)} for relationship ${quoted(r.name)} of object type ${quoted(o.name)} does not exist`);
      }
    }
  }
  return errs;
}

const isList = (t: TypeRef): boolean => t.kind === 'list';

function objectInfo(o: CustomObject, tables: Map<string, TableInfo>): CustomObjectInfo {
  return {
    name: o.name,
    description: o.description ?? null,
    fields: o.fields.map((f) => ({ name: f.name, type: parseTypeRef(f.type)!, description: f.description ?? null })),
    relationships: (o.relationships ?? []).map((r) => {
      if (r.source !== undefined && r.source !== 'default') {
        // The column types come from the other source (metadata/sourceRelationships.ts).
        return { name: r.name, type: r.type, remoteTable: r.remote_table, source: r.source, mapping: Object.entries(r.field_mapping).map(([field, column]) => ({ field, column, pgType: '' })) };
      }
      const table = tables.get(qualifiedKey(r.remote_table))!;
      return {
        name: r.name, type: r.type, remoteTable: table.name,
        mapping: Object.entries(r.field_mapping).map(([field, column]) => ({ field, column, pgType: table.columnsByName.get(column)!.pgType })),
      };
    }),
  };
}

/** Step 5 of the build: custom types, then actions. Records inconsistencies in `state`. */
export function buildActions(state: BuildState, env: NodeJS.ProcessEnv = process.env): { customTypes: CustomTypesInfo; actions: Map<string, ActionInfo> } {
  const md: Metadata = state.metadata;
  const ct = customTypesOf(md);
  const pg = knownPgTypes(state.tables);
  const info = emptyInfo();
  const errs = validateCustomTypes(ct, state.tables, pg, info);
  if (errs.length > 0) {
    const msgs = errs.map((e) => e.message);
    const reason = `validation for the given custom types failed ${msgs.length === 1 ? `because ${msgs[0]}` : `for the following reasons:\n${msgs.map((e) => `  • ${e}\n`).join('')}`}`;
    state.inconsistent.push({ id: { kind: 'custom_types' }, object: { type: 'custom_types', definition: customTypesDefinition(ct), reason } });
  }
  // The set is reported whole, as Hasura does; the types the errors do not reach stay usable, so one
  // bad type leaves out only the actions that use it.
  const usable = usableTypes(ct, new Set(errs.flatMap((e) => e.types)));
  info.defs = usable;
  for (const s of usable.scalars ?? []) info.inputNames.add(s.name);
  for (const e of usable.enums ?? []) info.inputNames.add(e.name);
  for (const i of usable.input_objects ?? []) info.inputNames.add(i.name);
  for (const o of usable.objects ?? []) info.objects.set(o.name, objectInfo(o, state.tables));
  const actions = new Map<string, ActionInfo>();
  for (const a of actionsOf(md)) {
    const reason = resolveAction(a, info, pg, actions, env);
    if (typeof reason === 'string') {
      state.inconsistent.push({ id: { kind: 'action', name: a.name }, object: { type: 'action', definition: a, reason } });
    }
  }
  return { customTypes: info, actions };
}

/** The custom types without `bad` ones and those whose fields reach a bad one. */
function usableTypes(ct: CustomTypes, bad: Set<string>): CustomTypes {
  if (bad.size === 0) return ct;
  const refs = (fields: ReadonlyArray<{ type: string }>) => fields.map((f) => { const t = parseTypeRef(f.type); return t ? baseName(t) : f.type; });
  const deps = new Map<string, string[]>([
    ...(ct.input_objects ?? []).map((i): [string, string[]] => [i.name, refs(i.fields)]),
    ...(ct.objects ?? []).map((o): [string, string[]] => [o.name, refs(o.fields)]),
  ]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, uses] of deps) {
      if (!bad.has(name) && uses.some((u) => bad.has(u))) {
        bad.add(name);
        grew = true;
      }
    }
  }
  const keep = <T extends { name: string }>(xs: T[] | null | undefined) => xs?.filter((x) => !bad.has(x.name));
  return { scalars: keep(ct.scalars), enums: keep(ct.enums), input_objects: keep(ct.input_objects), objects: keep(ct.objects) };
}

function resolveAction(a: ActionMetadata, info: CustomTypesInfo, pg: Set<string>, out: Map<string, ActionInfo>, env: NodeJS.ProcessEnv): string | undefined {
  const def = a.definition;
  const args: ActionInfo['arguments'] = [];
  for (const arg of def.arguments) {
    const t = parseTypeRef(arg.type);
    const b = t ? baseName(t) : arg.type;
    if (!t) return `the type: ${quoted(arg.type)} is not a valid GraphQL type`;
    if (!info.inputNames.has(b)) {
      if (!pg.has(b)) return `the type: ${quoted(b)} is not defined in custom types or it is not a scalar/enum/input_object`;
      info.pgScalars.add(b);
    }
    args.push({ name: arg.name, type: t, description: arg.description ?? null });
  }
  const output = parseTypeRef(def.output_type);
  if (!output) return `the type: ${quoted(def.output_type)} is not a valid GraphQL type`;
  // An object type, or (Hasura v2) a scalar — built-in, custom or Postgres — or an enum, each possibly in lists.
  const outName = baseName(output);
  const ob = info.objects.get(outName);
  const scalar = ob ? undefined : outputScalarOf(outName, info, pg);
  if (!ob && !scalar) return `the type: ${quoted(outName)} is not an object or scalar type defined in custom types`;
  if (def.kind === 'asynchronous' && def.type === 'query') return 'query actions cannot be asynchronous';
  const url = resolveUrlConf(def.handler, env);
  if (typeof def.handler !== 'string' && url.missing.length > 0) return `environment variable '${url.missing[0]}' not set`;
  if (url.missing.length > 0) return `the env variable(s) ${url.missing.map(quoted).join(', ')} for the handler of action ${quoted(a.name)} are not set`;
  const headers = resolveHeaders(def.headers ?? [], env);
  if (headers.missing.length > 0) return `environment variable ${quoted(headers.missing[0])} not set`;
  out.set(a.name, {
    name: a.name, meta: a, arguments: args, output, ...(ob ? { outputObject: ob } : { outputScalar: scalar }), url: url.url, headers: headers.headers,
    roles: new Set((a.permissions ?? []).map((p) => p.role)),
  });
  return undefined;
}

/** The scalar or enum an action output names: built-in, custom scalar, custom enum, or a Postgres scalar. */
function outputScalarOf(name: string, info: CustomTypesInfo, pg: Set<string>): ActionOutputScalar | undefined {
  if (name === 'Int' || name === 'Float' || name === 'String' || name === 'Boolean' || name === 'ID') return { kind: 'builtin', name };
  const e = (info.defs.enums ?? []).find((x) => x.name === name);
  if (e) return { kind: 'enum', name, values: e.values.map((v) => v.value) };
  if ((info.defs.scalars ?? []).some((x) => x.name === name)) return { kind: 'custom', name };
  if (pg.has(name)) {
    info.pgScalars.add(name);
    return { kind: 'custom', name };
  }
  return undefined;
}
