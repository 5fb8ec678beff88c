/**
 * Remote relationships at execution: the root field's one statement returns the join columns of
 * each row at the relationship's place (`{"id":1}`); this module finds those places (following the
 * IR: object/array relationships, aggregate `nodes`), and sends ONE request per relationship per
 * response level to the remote, one alias per distinct argument set (`r0: message(id: 1) {…}`),
 * then puts each row's answer back in place (rows with a null join column get null).
 * Errors from the remote fail the request with `Errors from remote server` (as Hasura v1.3).
 * A customized remote: the relationship's path is in the remote's names already; what the client
 * selected below it is translated to them, and the answer's `__typename`s renamed back (customizedNames.ts).
 */
import { print, valueFromASTUntyped, type FieldNode, type IntrospectionInputTypeRef, type IntrospectionInputValue, type IntrospectionObjectType, type IntrospectionTypeRef } from 'graphql';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, type Session } from '../core/index.js';
import type { AggregateField, SelectField } from '../ir/index.js';
import { customizedRemote, remoteAsSeen, remoteViewFor, type RemoteSchemaInfo, type SchemaCache } from '../metadata/index.js';
import { isSourceJoin, type RemoteJoinField, type RemoteJoinShape, type RowShapeField, type SourceJoinField } from '../planner/index.js';
import { joinSource, type SourceJoinArgs, type SourcePlaces } from './sourceJoin.js';
import { parse, validate, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { customizeAnswer, toRemoteNames } from './customizedNames.js';
import { ColRef, inlinedSelection, printLiteral, usedFragments, inlineVariables, Placeholder } from './documents.js';
import { remoteClientSchema } from './delegate.js';
import { addPresets, presetValue } from './presets.js';
import { remoteRequestHeaders } from './remoteHeaders.js';
import { callRemote } from './remoteRequest.js';

type Json = unknown;

/** Where one relationship's values sit: the objects holding them, under `alias`. */
export interface Places {
  join: RemoteJoinField | SourceJoinField;
  alias: string;
  holders: Array<Record<string, Json>>;
}

function collectRows(value: Json, fields: readonly SelectField[], found: Map<SelectField, Places>): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const v of value) collectRows(v, fields, found);
    return;
  }
  const row = value as Record<string, Json>;
  for (const f of fields) {
    switch (f.kind) {
      case 'remote_rel_keys': {
        let p = found.get(f);
        if (!p) found.set(f, (p = { join: f.join as RemoteJoinField | SourceJoinField, alias: f.alias, holders: [] }));
        p.holders.push(row);
        break;
      }
      case 'object_rel':
      case 'array_rel':
      case 'computed_table':
        collectRows(row[f.alias], f.select.fields, found);
        break;
      case 'array_agg_rel':
        collectAggregate(row[f.alias], f.aggregate.fields, found);
        break;
      default:
        break;
    }
  }
}

/** `collectRows` over a `rows` shape (an action's output): its nested objects are followed too. */
function collectShapeRows(value: Json, fields: readonly RowShapeField[], found: Map<SelectField, Places>): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const v of value) collectShapeRows(v, fields, found);
    return;
  }
  const selects: SelectField[] = [];
  for (const f of fields) {
    if (f.kind === 'nested') collectShapeRows((value as Record<string, Json>)[f.alias], f.fields, found);
    else selects.push(f);
  }
  if (selects.length > 0) collectRows(value, selects, found);
}

function collectAggregate(value: Json, fields: readonly AggregateField[], found: Map<SelectField, Places>): void {
  if (value === null || typeof value !== 'object') return;
  for (const f of fields) if (f.kind === 'nodes') collectRows((value as Record<string, Json>)[f.alias], f.fields, found);
}

const namedOf = (t: IntrospectionTypeRef): string => {
  let x = t;
  while (x.kind === 'NON_NULL' || x.kind === 'LIST') x = x.ofType;
  return x.name;
};

/** The template with `"$column"` replaced by the row's values; null when a join value is null. */
function substitute(v: Json, keys: Record<string, Json>): Json {
  if (typeof v === 'string' && v.startsWith('$')) return keys[v.slice(1)] ?? null;
  if (Array.isArray(v)) return v.map((x) => substitute(x, keys));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, keys)]));
  return v;
}

/** Deep merge of the client's arguments into the relationship's (the relationship's values win). */
function merge(base: Json, extra: Json): Json {
  if (base && extra && typeof base === 'object' && typeof extra === 'object' && !Array.isArray(base) && !Array.isArray(extra) && !(base instanceof ColRef)) {
    const out: Record<string, Json> = { ...(extra as Record<string, Json>) };
    for (const [k, v] of Object.entries(base)) out[k] = k in out ? merge(v, out[k]) : v;
    return out;
  }
  return base;
}

function printArgs(args: Record<string, Json>, params: readonly IntrospectionInputValue[], remote: RemoteSchemaInfo): string {
  const entries = Object.entries(args);
  if (entries.length === 0) return '';
  return `(${entries.map(([k, v]) => `${k}: ${printLiteral(v, params.find((p) => p.name === k)?.type as IntrospectionInputTypeRef | undefined, remote.types)}`).join(', ')})`;
}

/** The client's own arguments on the relationship field, as JSON. */
function clientArgs(node: FieldNode, variables: Record<string, unknown>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const a of node.arguments ?? []) out[a.name.value] = valueFromASTUntyped(a.value, variables);
  return out;
}

/** The remote field definition at each step of a relationship's path (looked up once per join). */
function stepDefs(rel: RemoteJoinField['rel'], remote: RemoteSchemaInfo): Array<IntrospectionObjectType['fields'][number] | undefined> {
  let parent: IntrospectionObjectType | null = remote.queryRoot;
  return rel.path.map((step) => {
    const def: IntrospectionObjectType['fields'][number] | undefined = parent?.fields.find((f) => f.name === step.name);
    const next = def ? remote.types.get(namedOf(def.type)) : undefined;
    parent = next && next.kind === 'OBJECT' ? next : null;
    return def;
  });
}

/** `field(args) { … }` down the relationship's path for one row's join values (`keys`). */
function fieldText(
  rel: RemoteJoinField['rel'], remote: RemoteSchemaInfo, defs: ReturnType<typeof stepDefs>, keys: Record<string, Json>, extra: Record<string, Json>, selText: string,
): string {
  let text = '';
  for (let i = rel.path.length - 1; i >= 0; i--) {
    const step = rel.path[i];
    let a = substitute(step.arguments, keys) as Record<string, Json>;
    if (i === rel.path.length - 1) a = merge(a, extra) as Record<string, Json>;
    const part = `${step.name}${printArgs(a, defs[i]?.args ?? [], remote)}`;
    text = i === rel.path.length - 1 ? `${part}${selText}` : `${part} { ${text} }`;
  }
  return text;
}

/**
 * The relationship's field text printed once with a marker per join column (see ColRef): the
 * fixed parts and, between them, the column (and its remote type) whose row value goes there.
 */
function compiledTemplate(
  rel: RemoteJoinField['rel'], remote: RemoteSchemaInfo, defs: ReturnType<typeof stepDefs>, extra: Record<string, Json>, selText: string,
): { parts: string[]; refs: ColRef[] } {
  const refs: ColRef[] = [];
  const withRefs = (v: Json): Json => {
    if (typeof v === 'string' && v.startsWith('$')) {
      const r = new ColRef(v.slice(1), refs.length);
      refs.push(r);
      return r;
    }
    if (Array.isArray(v)) return v.map(withRefs);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withRefs(x)]));
    return v;
  };
  let text = '';
  for (let i = rel.path.length - 1; i >= 0; i--) {
    const step = rel.path[i];
    let a = withRefs(step.arguments) as Record<string, Json>;
    if (i === rel.path.length - 1) a = merge(a, extra) as Record<string, Json>;
    const part = `${step.name}${printArgs(a, defs[i]?.args ?? [], remote)}`;
    text = i === rel.path.length - 1 ? `${part}${selText}` : `${part} { ${text} }`;
  }
  return { parts: text.split(/\u0000\d+\u0000/), refs: refs.slice().sort((x, y) => text.indexOf(x.marker) - text.indexOf(y.marker)) };
}

/**
 * What the client asked of a relationship: its own arguments, the selection and the fragments it
 * uses (variables inlined, printed), in the remote's names (`seen`: the role's part of the remote).
 */
function clientPart(join: RemoteJoinField, variables: Record<string, unknown>, seen: RemoteSchemaInfo, all: readonly FragmentDefinitionNode[]) {
  const node = join.nodes[0];
  let selection: SelectionSetNode | undefined = inlinedSelection(node.selectionSet, variables);
  let fragments = usedFragments(selection ? [selection] : [], all).map((f) => inlineVariables(f, variables));
  const c = seen.customizer;
  const field = c && selection ? stepDefs(join.rel, seen).at(-1) : undefined;
  if (c && field) {
    const engineNames = remoteClientSchema(customizedRemote(seen));
    const resultType = engineNames.getType(c.typeNames.get(namedOf(field.type)) ?? namedOf(field.type));
    if (resultType) selection = toRemoteNames(selection!, engineNames, c, resultType);
    fragments = fragments.map((f) => toRemoteNames(f, engineNames, c));
  }
  return { extra: clientArgs(node, variables), selection, selText: selection ? ` ${print(selection)}` : '', used: fragments.map((f) => print(f)) };
}

/** Relationships already checked, per remote schema (a reloaded remote is checked again) and variable values. */
const checked = new WeakMap<RemoteSchemaInfo, WeakMap<RemoteJoinField, Set<string>>>();

/**
 * Checks what the client asked of each remote relationship of `plan` against the remote's schema
 * (arguments, sub-selection), before anything runs: a bad one is `validation-failed` at the field.
 * With remote schema permissions, against the part of the remote `role` sees.
 */
export function checkRemoteJoins(plan: RemoteJoinShape, cache: SchemaCache, variables: Record<string, unknown>, role?: string): void {
  const visit = (fields: readonly SelectField[]): void => {
    for (const f of fields) {
      if (f.kind === 'remote_rel_keys' && isSourceJoin(f.join)) {
        // A relationship to a source's table: the remote relationships of its target rows.
        const node = f.join.node;
        if (node.kind === 'aggregate') visitAgg(node.ir.fields);
        else visit(node.ir.fields);
      } else if (f.kind === 'remote_rel_keys') checkOne(f.join as RemoteJoinField);
      else if (f.kind === 'object_rel' || f.kind === 'array_rel' || f.kind === 'computed_table') visit(f.select.fields);
      else if (f.kind === 'array_agg_rel') visitAgg(f.aggregate.fields);
    }
  };
  const visitAgg = (fields: readonly AggregateField[]): void => {
    for (const f of fields) if (f.kind === 'nodes') visit(f.fields);
  };
  const varsKey = JSON.stringify(variables);
  const checkOne = (join: RemoteJoinField): void => {
    const upstream = cache.remoteSchemas?.get(join.rel.remoteSchema);
    if (!upstream) throw new ApiError('unexpected', `remote schema ${JSON.stringify(join.rel.remoteSchema)} is not available`);
    const view = role === undefined ? undefined : remoteViewFor(cache, upstream, role);
    const remote = view ? remoteAsSeen(upstream, view) : upstream;
    let byJoin = checked.get(remote);
    if (!byJoin) checked.set(remote, (byJoin = new WeakMap()));
    let seen = byJoin.get(join);
    if (!seen) byJoin.set(join, (seen = new Set()));
    if (seen.has(varsKey)) return;
    const { extra, selText, used } = clientPart(join, variables, remote, plan.op.fragments);
    const keys = Object.fromEntries(join.rel.hasuraFields.map((c) => [c, new Placeholder()]));
    let doc;
    try {
      doc = parse(`query { ${fieldText(join.rel, remote, stepDefs(join.rel, remote), keys, extra, selText)} }\n${used.join('\n')}`);
    } catch (e) {
      throw new ApiError('validation-failed', (e as Error).message, { path: join.path });
    }
    const problems = validate(remoteClientSchema(remote), doc);
    if (problems.length > 0) throw new ApiError('validation-failed', problems[0].message, { path: join.path });
    if (seen.size < 64) seen.add(varsKey);
  };
  const visitShape = (fields: readonly RowShapeField[]): void => {
    for (const f of fields) if (f.kind === 'nested') visitShape(f.fields);
    visit(fields.filter((f): f is SelectField => f.kind !== 'nested'));
  };
  if (plan.shape.kind === 'aggregate') visitAgg(plan.shape.ir.fields);
  else if (plan.shape.kind === 'rows') visitShape(plan.shape.fields);
  else visit(plan.shape.ir.fields);
}

/** Runs one relationship for all its rows: one request. */
async function joinOne(p: Places & { join: RemoteJoinField }, args: RemoteJoinArgs, fragments: RemoteJoinShape['op']['fragments']): Promise<void> {
  const rel = p.join.rel;
  const remote = args.cache.remoteSchemas?.get(rel.remoteSchema);
  if (!remote) throw new ApiError('unexpected', `remote schema ${JSON.stringify(rel.remoteSchema)} is not available`);
  const view = remoteViewFor(args.cache, remote, args.session.role);
  const { extra, selText, used } = clientPart(p.join, args.variables, view ? remoteAsSeen(remote, view) : remote, fragments);
  const defs = stepDefs(rel, remote);
  const { parts, refs } = compiledTemplate(rel, remote, defs, extra, selText);
  const aliasOf = new Map<string, number>();
  const calls: string[] = [];
  const rowAlias: Array<number | null> = [];
  for (const holder of p.holders) {
    const keys = (holder[p.alias] ?? {}) as Record<string, Json>;
    if (rel.hasuraFields.some((c) => keys[c] === null || keys[c] === undefined)) {
      rowAlias.push(null);
      continue;
    }
    let text = parts[0];
    for (let i = 0; i < refs.length; i++) text += printLiteral(keys[refs[i].column] ?? null, refs[i].type, remote.types) + parts[i + 1];
    let n = aliasOf.get(text);
    if (n === undefined) {
      n = calls.length;
      aliasOf.set(text, n);
      calls.push(`${p.alias.replace(/[^_0-9A-Za-z]/g, '_')}__${n}: ${text}`);
    }
    rowAlias.push(n);
  }
  let data: Record<string, Json> | null = null;
  if (calls.length > 0) {
    let query = `query {\n  ${calls.join('\n  ')}\n}${used.length > 0 ? `\n${used.join('\n')}` : ''}`;
    // The role's @preset values (remote schema permissions), as variables of the request.
    let variables: Record<string, unknown> | undefined;
    if (view) {
      const schema = remoteClientSchema(remote);
      const withPresets = addPresets(parse(query), schema, view);
      if (withPresets.presets.length > 0) {
        query = print(withPresets.doc);
        variables = Object.fromEntries(withPresets.presets.map((v) => [v.name, presetValue(v.preset, args.session, schema)]));
      }
    }
    const answer = await callRemote({
      url: remote.url,
      headers: remoteRequestHeaders(remote, args.session, args.clientHeaders),
      timeoutSeconds: remote.timeoutSeconds,
      body: { query, ...(variables ? { variables } : {}) },
    });
    if (answer.errors) throw new ApiError('unexpected', 'Errors from remote server', { internal: answer.errors });
    data = answer.data;
  }
  args.requests.count += calls.length > 0 ? 1 : 0;
  p.holders.forEach((holder, i) => {
    const n = rowAlias[i];
    if (n === null || n === undefined) {
      holder[p.alias] = null;
      return;
    }
    let v: Json = data?.[`${p.alias.replace(/[^_0-9A-Za-z]/g, '_')}__${n}`] ?? null;
    for (const step of rel.path.slice(1)) v = pluck(v, step.name);
    if (remote.customizer) v = customizeAnswer(structuredClone(v), p.join.nodes[0].selectionSet, fragmentMap(fragments), remote.customizer);
    holder[p.alias] = v;
  });
}

const fragmentMaps = new WeakMap<readonly FragmentDefinitionNode[], Map<string, FragmentDefinitionNode>>();
function fragmentMap(all: readonly FragmentDefinitionNode[]): Map<string, FragmentDefinitionNode> {
  let m = fragmentMaps.get(all);
  if (!m) fragmentMaps.set(all, (m = new Map(all.map((f) => [f.name.value, f]))));
  return m;
}

function pluck(v: Json, key: string): Json {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map((x) => pluck(x, key));
  return (v as Record<string, Json>)[key] ?? null;
}

export interface RemoteJoinArgs extends SourceJoinArgs {
  cache: SchemaCache;
  session: Session;
  variables: Record<string, unknown>;
  clientHeaders?: IncomingHttpHeaders;
  /** Counts the requests sent to remotes (tests and benchmarks read it). */
  requests: { count: number };
}

/** Puts the remote answers into `root` (the root field's parsed JSON, or an action's output); returns it. */
export async function runRemoteJoins(root: Json, plan: RemoteJoinShape, args: RemoteJoinArgs): Promise<Json> {
  const found = new Map<SelectField, Places>();
  if (plan.shape.kind === 'aggregate') collectAggregate(root, plan.shape.ir.fields, found);
  else if (plan.shape.kind === 'rows') collectShapeRows(root, plan.shape.fields, found);
  else collectRows(root, plan.shape.ir.fields, found);
  await runFound(found, args, plan.op.fragments);
  return root;
}

/**
 * Runs the relationships of one response level: each remote schema's with one request, those to
 * a source's table with one statement per source; then the next level, found in the answers of
 * the latter (remote fields hold no tables: a remote's answer ends its branch).
 */
export async function runFound(found: ReadonlyMap<unknown, Places>, args: RemoteJoinArgs, fragments: RemoteJoinShape['op']['fragments']): Promise<void> {
  const bySource = new Map<string, SourcePlaces[]>();
  const remote: Array<Places & { join: RemoteJoinField }> = [];
  for (const p of found.values()) {
    if (!isSourceJoin(p.join)) {
      remote.push(p as Places & { join: RemoteJoinField });
      continue;
    }
    const list = bySource.get(p.join.rel.source) ?? [];
    list.push(p as SourcePlaces);
    bySource.set(p.join.rel.source, list);
  }
  await Promise.all([
    ...remote.map((p) => joinOne(p, args, fragments)),
    ...[...bySource].map(async ([source, places]) => {
      const next = new Map<SelectField, Places>();
      for (const { node, answers } of await joinSource(source, places, args)) {
        for (const a of answers) {
          if (node.kind === 'aggregate') collectAggregate(a, node.ir.fields, next);
          else collectRows(a, node.ir.fields, next);
        }
      }
      if (next.size > 0) await runFound(next, args, fragments);
    }),
  ]);
}

