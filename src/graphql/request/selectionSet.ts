/**
 * Walks selection sets against the role's schema the way Hasura v1.3's validator does
 * (`Validate/SelectionSet.hs`), producing merged `NField`s: unknown fields, argument checks,
 * sub-selection rules, named/inline fragments (with cycle detection along the current chain),
 * `@skip`/`@include` (applied before anything else is checked of the selection they sit on), and merging of fields that share a response key.
 * Paths follow Hasura: `$.selectionSet.<field name>.args...`, `.<fragment name>`, `.inlineFragment`.
 */
import {
  GraphQLEnumType, GraphQLInterfaceType, GraphQLNonNull, GraphQLObjectType, GraphQLScalarType,
  GraphQLUnionType, Kind, SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef, getNamedType,
  type ArgumentNode, type DirectiveNode, type FieldNode, type FragmentDefinitionNode, type GraphQLArgument,
  type GraphQLField, type GraphQLSchema, type SelectionSetNode,
} from 'graphql';
import { pathKey } from '../../core/index.js';
import { coerceLiteral, type VariableInfo } from './inputValue.js';
import { duplicates, showGT, showName, showNames, showNamedTy, vf } from './messages.js';
import { tooLarge } from './operationLimits.js';
import type { AnnValue, NField, RemoteTypeRelNode } from './types.js';
import { canonicalName, outputMeta } from '../schema/fieldMeta.js';

/** Fields answered by a remote schema: their arguments and sub-selection are the remote's to check. */
const isRemoteField = (def: GraphQLField<unknown, unknown>): boolean => {
  const kind = outputMeta(def)?.kind;
  return kind === 'ext:remote' || kind === 'ext:remote_rel';
};

export interface WalkContext {
  schema: GraphQLSchema;
  queryRoot: GraphQLObjectType;
  /** False for a role listed in the metadata's `graphql_schema_introspection.disabled_for_roles`: no `__schema` / `__type`. */
  introspection?: boolean;
  vars: ReadonlyMap<string, VariableInfo>;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /**
   * Selections (fields, spreads, inline fragments) the walk may still visit: a second guard behind
   * `measureOperation`, so no document, cyclic ones included, makes the walk expand
   * fragments without end.
   */
  budget?: { left: number };
}

function spend(ctx: WalkContext): void {
  if (ctx.budget && --ctx.budget.left < 0) throw tooLarge();
}

/** The merged fields of `selectionSet` on `parentType` (the set itself sits at `path`). */
export function walkSelectionSet(
  ctx: WalkContext, parentType: GraphQLObjectType, selectionSet: SelectionSetNode, path: string, visited: readonly string[],
  /** Walking one possible type of an abstract field: fragments on other object types are left out. */
  lenient = false,
): NField[] {
  const here = `${path}.selectionSet`;
  const collected: NField[] = [];
  for (const sel of selectionSet.selections) {
    spend(ctx);
    if (sel.kind === Kind.FIELD) {
      const f = walkField(ctx, parentType, sel, pathKey(here, sel.name.value), visited);
      if (f) collected.push(f);
    } else if (sel.kind === Kind.FRAGMENT_SPREAD) {
      const name = sel.name.value;
      if (visited.includes(name)) {
        throw vf(`cannot spread fragment ${showName(name)} within itself via ${visited.join(',')}`, here);
      }
      const frag = ctx.fragments.get(name);
      if (!frag) throw vf(`fragment '${name}' not found`, here);
      const fragPath = pathKey(here, name);
      const fields = walkFragment(ctx, parentType, frag.typeCondition.name.value, sel.directives, frag.selectionSet, fragPath, [name, ...visited], lenient);
      if (fields) collected.push(...fields);
    } else {
      const typeName = sel.typeCondition?.name.value ?? parentType.name;
      // A skipped inline fragment's type condition is not looked up either.
      if (!includeByDirectives(ctx, sel.directives, `${here}.inlineFragment`)) continue;
      if (!ctx.schema.getType(typeName)) throw vf(`no such type exists in the schema: ${showNamedTy(typeName)}`, here);
      const fields = walkFragment(ctx, parentType, typeName, undefined, sel.selectionSet, `${here}.inlineFragment`, visited, lenient);
      if (fields) collected.push(...fields);
    }
  }
  return mergeFields(collected, here);
}

function walkFragment(
  ctx: WalkContext, parentType: GraphQLObjectType, typeName: string, directives: readonly DirectiveNode[] | undefined,
  selectionSet: SelectionSetNode, path: string, visited: readonly string[], lenient: boolean,
): NField[] | null {
  // Directives before the type condition and the selection (Hasura's `Collect.hs`).
  if (!includeByDirectives(ctx, directives, path)) return null;
  const fragType = ctx.schema.getType(typeName);
  if (!(fragType instanceof GraphQLObjectType) || fragType.name !== parentType.name) {
    const implemented = fragType instanceof GraphQLInterfaceType && parentType.getInterfaces().includes(fragType);
    if (!implemented) {
      if (lenient && fragType instanceof GraphQLObjectType) return null;
      const shown = fragType ? fragType.name : typeName;
      throw vf(`cannot spread fragment  defined on ${showNamedTy(shown)} when selecting fields of type ${showNamedTy(parentType.name)}`, path);
    }
  }
  return walkSelectionSet(ctx, parentType, selectionSet, path, visited, lenient);
}

/**
 * A selection on an interface whose implementations are tables (the Relay `Node`): walked once per
 * possible object type, each walk keeping the fields and fragments that apply to that type.
 */
function walkAbstract(
  ctx: WalkContext, named: GraphQLInterfaceType, selectionSet: SelectionSetNode, path: string, visited: readonly string[],
): Map<string, NField[]> {
  const byType = new Map<string, NField[]>();
  for (const t of ctx.schema.getPossibleTypes(named)) byType.set(t.name, walkSelectionSet(ctx, t, selectionSet, path, visited, true));
  return byType;
}

function fieldDef(ctx: WalkContext, parentType: GraphQLObjectType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === '__typename') return TypeNameMetaFieldDef;
  if (parentType === ctx.queryRoot && ctx.introspection !== false) {
    if (name === '__schema') return SchemaMetaFieldDef;
    if (name === '__type') return TypeMetaFieldDef;
  }
  return parentType.getFields()[name];
}

function walkField(
  ctx: WalkContext, parentType: GraphQLObjectType, node: FieldNode, path: string, visited: readonly string[],
): NField | null {
  const name = node.name.value;
  // `@skip` / `@include` first, as Hasura's `Collect.hs` collects fields before it looks them up: a
  // skipped field is not looked up, nor are its arguments or sub-selection checked (the directives
  // themselves and their variables still are).
  if (!includeByDirectives(ctx, node.directives, path)) return null;
  const def = fieldDef(ctx, parentType, name);
  if (!def) throw vf(`field ${showName(name)} not found in type: ${showNamedTy(parentType.name)}`, path);
  if (isRemoteField(def)) {
    // Only the names here: a remote relationship's own arguments are not offered at all (the remote checks the rest).
    for (const a of node.arguments ?? []) {
      if (!def.args.some((p) => p.name === a.name.value)) throw vf(`no such argument ${showName(a.name.value)} is expected`, pathKey(`${path}.args`, a.name.value));
    }
    const out: NField = { alias: node.alias?.value ?? name, name, def, parentType, args: new Map(), selection: null, path, nodes: [node] };
    // Inside a remote root field's selection: the relationships of the remote's types to tables, walked as fields here.
    if (outputMeta(def)?.kind === 'ext:remote' && node.selectionSet) {
      const rels: RemoteTypeRelNode[] = [];
      remoteTypeRels(ctx, getNamedType(def.type), node.selectionSet, path, visited, rels);
      if (rels.length > 0) out.remoteTypeRels = rels;
    }
    return out;
  }
  const args = walkArguments(ctx, def.args, node.arguments ?? [], `${path}.args`);
  const named = getNamedType(def.type);
  let selection: NField[] | null = null;
  let byType: Map<string, NField[]> | undefined;
  const hasSel = !!node.selectionSet && node.selectionSet.selections.length > 0;
  if (named instanceof GraphQLObjectType) {
    if (!hasSel) throw vf(`field ${showName(name)} of type ${showGT(def.type)} must have a selection of subfields`, path);
    selection = walkSelectionSet(ctx, named, node.selectionSet!, path, visited);
  } else if (named instanceof GraphQLInterfaceType || named instanceof GraphQLUnionType) {
    if (!hasSel) throw vf(`field ${showName(name)} of type ${showGT(def.type)} must have a selection of subfields`, path);
    if (!(named instanceof GraphQLInterfaceType) || outputMeta(def)?.kind !== 'ext:relay_node') {
      throw vf(`selections on abstract type ${showNamedTy(named.name)} are not supported`, path);
    }
    byType = walkAbstract(ctx, named, node.selectionSet!, path, visited);
    selection = [];
  } else if (named instanceof GraphQLScalarType || named instanceof GraphQLEnumType) {
    if (hasSel) throw vf(`field ${showName(name)} must not have a selection since type ${showGT(def.type)} has no subfields`, path);
  }
  return {
    alias: node.alias?.value ?? name,
    name,
    def,
    parentType,
    args,
    selection,
    path,
    nodes: [node],
    ...(byType ? { byType } : {}),
  };
}

/**
 * The fields of `selectionSet` (a remote's selection, on `parent`) that are relationships of a
 * remote type to a table (`ext:remote_type_rel`), each walked as a field (its arguments and
 * selection checked against the table's types); one skipped by `@skip` / `@include` has no field.
 */
function remoteTypeRels(
  ctx: WalkContext, parent: ReturnType<typeof getNamedType>, selectionSet: SelectionSetNode, path: string, visited: readonly string[], out: RemoteTypeRelNode[],
): void {
  const here = `${path}.selectionSet`;
  for (const sel of selectionSet.selections) {
    spend(ctx);
    if (sel.kind === Kind.FIELD) {
      const def = parent instanceof GraphQLObjectType || parent instanceof GraphQLInterfaceType ? parent.getFields()[sel.name.value] : undefined;
      if (!def) continue; // the remote's own validation names it
      const at = pathKey(here, sel.alias?.value ?? sel.name.value);
      if (outputMeta(def)?.kind === 'ext:remote_type_rel') {
        out.push({ node: sel, field: walkField(ctx, parent as GraphQLObjectType, sel, at, visited) });
      } else if (sel.selectionSet) {
        remoteTypeRels(ctx, getNamedType(def.type), sel.selectionSet, at, visited, out);
      }
    } else if (sel.kind === Kind.FRAGMENT_SPREAD) {
      const name = sel.name.value;
      const frag = ctx.fragments.get(name);
      if (!frag || visited.includes(name)) continue;
      const t = ctx.schema.getType(frag.typeCondition.name.value);
      if (t) remoteTypeRels(ctx, t, frag.selectionSet, pathKey(here, name), [name, ...visited], out);
    } else {
      const t = sel.typeCondition ? ctx.schema.getType(sel.typeCondition.name.value) : parent;
      if (t) remoteTypeRels(ctx, t, sel.selectionSet, `${here}.inlineFragment`, visited, out);
    }
  }
}

/** Validates arguments against the parameter list (Hasura's `parseArguments`). */
export function walkArguments(
  ctx: WalkContext, params: readonly GraphQLArgument[], nodes: readonly ArgumentNode[], path: string,
): Map<string, AnnValue> {
  const dups = duplicates(nodes.map((a) => a.name.value));
  if (dups.length > 0) throw vf(`the following arguments are defined more than once: ${showNames(dups)}`, path);
  const out = new Map<string, AnnValue>();
  for (const a of nodes) {
    const argName = a.name.value;
    const p = pathKey(path, argName);
    const param = params.find((x) => x.name === argName);
    if (!param) throw vf(`no such argument ${showName(argName)} is expected`, p);
    const rowCount = (param.extensions as { svc?: { rowCount?: boolean } } | undefined)?.svc?.rowCount === true;
    out.set(canonicalName(param), coerceLiteral(param.type, a.value, p, ctx.vars, { rowCount }));
  }
  for (const param of params) {
    if (param.type instanceof GraphQLNonNull && param.defaultValue === undefined && !out.has(canonicalName(param))) {
      throw vf(`the required argument ${showName(param.name)} is missing`, path);
    }
  }
  return out;
}

/** `@skip(if:)` / `@include(if:)`: false when the selection is to be left out. */
function includeByDirectives(ctx: WalkContext, directives: readonly DirectiveNode[] | undefined, path: string): boolean {
  if (!directives || directives.length === 0) return true;
  const dpath = `${path}.directives`;
  const dups = duplicates(directives.map((d) => d.name.value));
  if (dups.length > 0) throw vf(`the following directives are used more than once: ${showNames(dups)}`, dpath);
  let skip = false;
  let include = true;
  for (const d of directives) {
    const name = d.name.value;
    const p = pathKey(dpath, name);
    const def = name === 'skip' || name === 'include' ? ctx.schema.getDirective(name) : undefined;
    if (!def) throw vf(`unexpected directive: ${showName(name)}`, p);
    const args = walkArguments(ctx, def.args, d.arguments ?? [], `${p}.args`);
    const v = args.get('if');
    const on = v?.kind === 'scalar' && (v.value === true || v.value === 'true');
    if (name === 'skip') skip = on;
    else include = on;
  }
  return !skip && include;
}

/** Groups fields by response key (first appearance order) and merges each group. */
function mergeFields(fields: NField[], path: string): NField[] {
  const groups = new Map<string, NField[]>();
  for (const f of fields) {
    const g = groups.get(f.alias);
    if (g) g.push(f);
    else groups.set(f.alias, [f]);
  }
  const out: NField[] = [];
  for (const [alias, group] of groups) {
    if (group.length === 1) {
      out.push(group[0]);
      continue;
    }
    const names = [...new Set(group.map((f) => f.name))];
    if (names.length > 1) throw vf(`cannot merge different fields under the same alias (${showName(alias)}): ${showNames(names)}`, path);
    const argKeys = new Set(group.map((f) => argsKey(f.args)));
    if (argKeys.size > 1) throw vf(`cannot merge fields with different arguments under the same alias: ${showName(alias)}`, path);
    const first = group[0];
    const selection = first.selection === null ? null : mergeFields(group.flatMap((f) => f.selection ?? []), path);
    const merged: NField = { ...first, selection, nodes: group.flatMap((f) => f.nodes) };
    if (first.byType) {
      merged.byType = new Map([...first.byType.keys()].map((t) => [t, mergeFields(group.flatMap((f) => f.byType?.get(t) ?? []), path)]));
    }
    out.push(merged);
  }
  return out;
}

function argsKey(args: Map<string, AnnValue>): string {
  return JSON.stringify([...args.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, annKey(v)]));
}

function annKey(v: AnnValue): unknown {
  const ref = v.variable ? `$${v.variable.name}${v.variable.path.map((p) => `/${p}`).join('')}` : undefined;
  switch (v.kind) {
    case 'null': return [ref, null];
    case 'scalar': return [ref, v.value];
    case 'enum': return [ref, v.name];
    case 'list': return [ref, v.items.map(annKey)];
    case 'object': return [ref, v.fields.map(([k, x]) => [k, annKey(x)])];
  }
}
