/**
 * Remote schema permissions (Hasura v2, with `--enable-remote-schema-permissions`): a role's schema
 * of a remote is an SDL document that must be a subset of the remote's introspection (types with
 * the same kind, fields and arguments with the same types, enum values, union members and
 * interfaces that exist upstream). `@preset(value: ..., static: Boolean)` on an argument or an
 * input field fixes its value: it is hidden from the role and sent to the remote; a string value
 * starting with `x-svc-` is read from the session unless `static: true`. The result is the role's
 * view: a filtered introspection (what remoteTypes builds the role's types from) and the presets
 * (what delegation adds to the query). Inherited roles get the union of their parents' views.
 */
import {
  Kind, buildClientSchema, parse, parseType, print, valueFromAST, valueFromASTUntyped, type DirectiveNode, type FieldDefinitionNode,
  type GraphQLInputType, type GraphQLSchema, type InputValueDefinitionNode, type IntrospectionEnumType, type IntrospectionField,
  type IntrospectionInputObjectType, type IntrospectionInputValue, type IntrospectionInterfaceType, type IntrospectionObjectType,
  type IntrospectionQuery, type IntrospectionType, type IntrospectionTypeRef, type IntrospectionUnionType, type TypeDefinitionNode,
  type TypeNode, typeFromAST,
} from 'graphql';
import { ADMIN_ROLE } from '../../core/index.js';
import { BuildError } from './buildState.js';
import type { RemotePreset, RemoteRoleView, RemoteSchemaInfo, SchemaCache } from './types.js';

const BUILTIN_SCALARS = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);
const SESSION_PREFIX = 'x-svc-';

/** `[Int!]!` for an introspection type reference. */
export function typeRefString(ref: IntrospectionTypeRef): string {
  if (ref.kind === 'NON_NULL') return `${typeRefString(ref.ofType)}!`;
  if (ref.kind === 'LIST') return `[${typeRefString(ref.ofType)}]`;
  return ref.name;
}

function namedOfNode(t: TypeNode): string {
  return t.kind === Kind.NAMED_TYPE ? t.name.value : namedOfNode(t.type);
}

const KIND_WORDS: Record<IntrospectionType['kind'], string> = {
  OBJECT: 'object', INTERFACE: 'interface', UNION: 'union', ENUM: 'enum', INPUT_OBJECT: 'input object', SCALAR: 'scalar',
};

const DEF_KINDS: Partial<Record<Kind, IntrospectionType['kind']>> = {
  [Kind.OBJECT_TYPE_DEFINITION]: 'OBJECT', [Kind.INTERFACE_TYPE_DEFINITION]: 'INTERFACE', [Kind.UNION_TYPE_DEFINITION]: 'UNION',
  [Kind.ENUM_TYPE_DEFINITION]: 'ENUM', [Kind.INPUT_OBJECT_TYPE_DEFINITION]: 'INPUT_OBJECT', [Kind.SCALAR_TYPE_DEFINITION]: 'SCALAR',
};

const upstreamSchemas = new WeakMap<RemoteSchemaInfo, GraphQLSchema>();
function upstreamSchema(remote: RemoteSchemaInfo): GraphQLSchema {
  let s = upstreamSchemas.get(remote);
  if (!s) upstreamSchemas.set(remote, (s = buildClientSchema(remote.introspection, { assumeValid: true })));
  return s;
}

/** Whether a preset value contains a session variable somewhere (it is then checked at request time). */
function hasSessionVariable(v: unknown): boolean {
  if (typeof v === 'string') return v.toLowerCase().startsWith(SESSION_PREFIX);
  if (Array.isArray(v)) return v.some(hasSessionVariable);
  if (v !== null && typeof v === 'object') return Object.values(v).some(hasSessionVariable);
  return false;
}

/** Checks the role's SDL against the remote and returns the role's view (BuildError with Hasura's message). */
export function resolveRemotePermission(remote: RemoteSchemaInfo, sdl: string): RemoteRoleView {
  let doc;
  try {
    doc = parse(sdl);
  } catch (e) {
    throw new BuildError(`parsing the role-based schema failed: ${(e as Error).message}`);
  }
  const errors: string[] = [];
  const provided = new Map<string, TypeDefinitionNode>();
  let roots: { query?: string; mutation?: string } | undefined;
  for (const d of doc.definitions) {
    if (d.kind === Kind.SCHEMA_DEFINITION) {
      roots = {};
      for (const o of d.operationTypes) {
        if (o.operation === 'query') roots.query = o.type.name.value;
        else if (o.operation === 'mutation') roots.mutation = o.type.name.value;
        else errors.push('subscriptions are not supported on remote schemas');
      }
    } else if (d.kind in DEF_KINDS) {
      const t = d as TypeDefinitionNode;
      if (provided.has(t.name.value)) errors.push(`duplicate type names found: ${JSON.stringify(t.name.value)}`);
      provided.set(t.name.value, t);
    } else if (d.kind !== Kind.DIRECTIVE_DEFINITION) {
      errors.push(`only type definitions and the schema definition may be given, found ${d.kind}`);
    }
  }
  const known = (name: string) => BUILTIN_SCALARS.has(name) || provided.has(name);
  const schema = upstreamSchema(remote);
  const argPresets = new Map<string, Map<string, RemotePreset>>();
  const inputPresets = new Map<string, Map<string, RemotePreset>>();
  const types: IntrospectionType[] = [];

  /** The preset of an argument / input field, or undefined; errors pushed. */
  const presetOf = (node: InputValueDefinitionNode, up: IntrospectionInputValue, where: string): RemotePreset | undefined => {
    let preset: RemotePreset | undefined;
    for (const dir of node.directives ?? []) {
      if (dir.name.value !== 'preset') {
        errors.push(`unknown directive ${JSON.stringify(dir.name.value)} on ${where}`);
        continue;
      }
      const value = dir.arguments?.find((a) => a.name.value === 'value');
      const stat = dir.arguments?.find((a) => a.name.value === 'static');
      if (!value) {
        errors.push(`the preset directive of ${where} has no "value" argument`);
        continue;
      }
      const isStatic = stat?.value.kind === Kind.BOOLEAN && stat.value.value;
      const json = valueFromASTUntyped(value.value);
      const type = typeFromAST(schema, parseType(typeRefString(up.type))) as GraphQLInputType | undefined;
      if ((isStatic || !hasSessionVariable(json)) && type && valueFromAST(value.value, type) === undefined) {
        errors.push(`expected preset value ${print(value.value)} of ${where} to be of type ${JSON.stringify(typeRefString(up.type))}`);
        continue;
      }
      preset = { value: json, static: Boolean(isStatic), type: typeRefString(up.type) };
    }
    return preset;
  };

  /** The upstream input values kept by the role (presets recorded, not kept). */
  const inputValues = (
    nodes: readonly InputValueDefinitionNode[], upstream: readonly IntrospectionInputValue[], what: string, owner: string,
    presets: Map<string, RemotePreset>,
  ): IntrospectionInputValue[] => {
    const out: IntrospectionInputValue[] = [];
    for (const n of nodes) {
      const up = upstream.find((u) => u.name === n.name.value);
      const where = `${what} ${JSON.stringify(n.name.value)} of ${JSON.stringify(owner)}`;
      if (!up) {
        errors.push(`${where} does not exist in the upstream remote schema`);
        continue;
      }
      if (print(n.type) !== typeRefString(up.type)) {
        errors.push(`the type of ${where} is ${JSON.stringify(typeRefString(up.type))} in the upstream remote schema, not ${JSON.stringify(print(n.type))}`);
        continue;
      }
      if (!known(namedOfNode(n.type))) errors.push(`type ${JSON.stringify(namedOfNode(n.type))} of ${where} is not defined in the role-based schema`);
      const preset = presetOf(n, up, where);
      if (preset) presets.set(up.name, preset);
      else out.push(up);
    }
    for (const up of upstream) {
      const given = nodes.some((n) => n.name.value === up.name);
      if (!given && up.type.kind === 'NON_NULL' && up.defaultValue == null) {
        errors.push(`non-nullable ${what} ${JSON.stringify(up.name)} of ${JSON.stringify(owner)} must be given (or preset) in the role-based schema`);
      }
    }
    return out;
  };

  const fields = (nodes: readonly FieldDefinitionNode[], up: IntrospectionObjectType | IntrospectionInterfaceType): IntrospectionField[] => {
    const out: IntrospectionField[] = [];
    for (const n of nodes) {
      const uf = up.fields.find((f) => f.name === n.name.value);
      const where = `field ${JSON.stringify(n.name.value)} of ${JSON.stringify(up.name)}`;
      if (!uf) {
        errors.push(`${where} does not exist in the upstream remote schema`);
        continue;
      }
      if (print(n.type) !== typeRefString(uf.type)) {
        errors.push(`the type of ${where} is ${JSON.stringify(typeRefString(uf.type))} in the upstream remote schema, not ${JSON.stringify(print(n.type))}`);
        continue;
      }
      if (!known(namedOfNode(n.type))) errors.push(`type ${JSON.stringify(namedOfNode(n.type))} of ${where} is not defined in the role-based schema`);
      if ((n.directives ?? []).some((d: DirectiveNode) => d.name.value === 'preset')) {
        errors.push('Preset directives can be defined only on INPUT_FIELD_DEFINITION or ARGUMENT_DEFINITION');
      }
      const presets = new Map<string, RemotePreset>();
      const args = inputValues(n.arguments ?? [], uf.args, 'argument', `${up.name}.${uf.name}`, presets);
      if (presets.size > 0) argPresets.set(`${up.name}.${uf.name}`, presets);
      out.push({ ...uf, args });
    }
    return out;
  };

  for (const [name, node] of provided) {
    const kind = DEF_KINDS[node.kind]!;
    const up = remote.types.get(name);
    if (!up) {
      if (!(kind === 'SCALAR' && BUILTIN_SCALARS.has(name))) errors.push(`${KIND_WORDS[kind]} ${JSON.stringify(name)} does not exist in the upstream remote schema`);
      continue;
    }
    if (up.kind !== kind) {
      errors.push(`${JSON.stringify(name)} is ${KIND_WORDS[up.kind]} in the upstream remote schema, not ${KIND_WORDS[kind]}`);
      continue;
    }
    switch (node.kind) {
      case Kind.OBJECT_TYPE_DEFINITION:
      case Kind.INTERFACE_TYPE_DEFINITION: {
        const upObj = up as IntrospectionObjectType | IntrospectionInterfaceType;
        const ifaces = (node.interfaces ?? []).map((i) => i.name.value);
        const upIfaces = (upObj.interfaces ?? []).map((i) => i.name);
        for (const i of ifaces) {
          if (!upIfaces.includes(i)) errors.push(`${JSON.stringify(name)} does not implement the interface ${JSON.stringify(i)} in the upstream remote schema`);
          else if (!known(i)) errors.push(`interface ${JSON.stringify(i)} of ${JSON.stringify(name)} is not defined in the role-based schema`);
        }
        const fs = fields(node.fields ?? [], upObj);
        const interfaces = (upObj.interfaces ?? []).filter((i) => ifaces.includes(i.name));
        types.push(up.kind === 'OBJECT' ? { ...up, fields: fs, interfaces } : { ...(up as IntrospectionInterfaceType), fields: fs, interfaces });
        break;
      }
      case Kind.INPUT_OBJECT_TYPE_DEFINITION: {
        const upIn = up as IntrospectionInputObjectType;
        const presets = new Map<string, RemotePreset>();
        const inputFields = inputValues(node.fields ?? [], upIn.inputFields, 'input field', name, presets);
        if (presets.size > 0) inputPresets.set(name, presets);
        types.push({ ...upIn, inputFields });
        break;
      }
      case Kind.ENUM_TYPE_DEFINITION: {
        const upEnum = up as IntrospectionEnumType;
        const values = (node.values ?? []).map((v) => v.name.value);
        for (const v of values) if (!upEnum.enumValues.some((e) => e.name === v)) errors.push(`enum value ${JSON.stringify(v)} of ${JSON.stringify(name)} does not exist in the upstream remote schema`);
        types.push({ ...upEnum, enumValues: upEnum.enumValues.filter((e) => values.includes(e.name)) });
        break;
      }
      case Kind.UNION_TYPE_DEFINITION: {
        const upUnion = up as IntrospectionUnionType;
        const members = (node.types ?? []).map((t) => t.name.value);
        for (const m of members) {
          if (!upUnion.possibleTypes.some((p) => p.name === m)) errors.push(`${JSON.stringify(m)} is not a member of the union ${JSON.stringify(name)} in the upstream remote schema`);
          else if (!known(m)) errors.push(`member ${JSON.stringify(m)} of ${JSON.stringify(name)} is not defined in the role-based schema`);
        }
        types.push({ ...upUnion, possibleTypes: upUnion.possibleTypes.filter((p) => members.includes(p.name)) });
        break;
      }
      default:
        types.push(up);
    }
  }
  // The roots: the schema definition's, or the types named like the upstream's roots.
  const queryName = roots?.query ?? (provided.has('Query') ? 'Query' : remote.introspection.__schema.queryType?.name);
  const mutationName = roots?.mutation ?? (provided.has('Mutation') ? 'Mutation' : remote.introspection.__schema.mutationType?.name);
  const upQuery = remote.introspection.__schema.queryType?.name;
  const upMutation = remote.introspection.__schema.mutationType?.name;
  if (!queryName || !provided.has(queryName)) errors.push('query root does not exist in the schema definition');
  else if (queryName !== upQuery) errors.push(`query root ${JSON.stringify(queryName)} is not the query root of the upstream remote schema (${JSON.stringify(upQuery ?? '')})`);
  const hasMutation = mutationName !== undefined && provided.has(mutationName);
  if (roots?.mutation && !hasMutation) errors.push(`mutation root ${JSON.stringify(roots.mutation)} is not defined in the role-based schema`);
  if (hasMutation && mutationName !== upMutation) errors.push(`mutation root ${JSON.stringify(mutationName)} is not the mutation root of the upstream remote schema`);
  if (errors.length === 1) throw new BuildError(`validation for the given role-based schema failed because ${errors[0]}`);
  if (errors.length > 1) throw new BuildError(`validation for the given role-based schema failed for the following reasons:\n${errors.map((e) => ` • ${e}`).join('\n')}\n`);
  return viewOf(remote.introspection, types, queryName!, hasMutation ? mutationName! : undefined, argPresets, inputPresets);
}

function viewOf(
  upstream: IntrospectionQuery, given: IntrospectionType[], query: string, mutation: string | undefined,
  argPresets: Map<string, Map<string, RemotePreset>>, inputPresets: Map<string, Map<string, RemotePreset>>,
): RemoteRoleView {
  // The built-in scalars are always there (a client schema needs them), as the upstream's directives.
  const types = [...given];
  for (const name of BUILTIN_SCALARS) {
    if (!types.some((t) => t.name === name)) types.push({ kind: 'SCALAR', name, description: null } as IntrospectionType);
  }
  const byName = new Map(types.map((t) => [t.name, t]));
  const root = (n: string | undefined) => {
    const t = n ? byName.get(n) : undefined;
    return t && t.kind === 'OBJECT' ? t : null;
  };
  const introspection: IntrospectionQuery = {
    __schema: {
      queryType: { kind: 'OBJECT', name: query },
      mutationType: mutation ? { kind: 'OBJECT', name: mutation } : null,
      subscriptionType: null,
      types,
      directives: upstream.__schema.directives,
    },
  } as IntrospectionQuery;
  return { introspection, types: byName, queryRoot: root(query), mutationRoot: root(mutation), argPresets, inputPresets };
}

const samePreset = (a: RemotePreset, b: RemotePreset) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Union of `views` (an inherited role's): every type, field, argument, enum value and member any
 * parent has. A preset stays when every parent that has the argument presets it to the same value;
 * a parent that lets the role choose the value makes it free; parents with different presets
 * drop the argument (no single value is right for the inherited role).
 */
export function mergeRemoteViews(views: readonly RemoteRoleView[]): RemoteRoleView {
  if (views.length === 1) return views[0];
  const types = new Map<string, IntrospectionType>();
  const argPresets = new Map<string, Map<string, RemotePreset>>();
  const inputPresets = new Map<string, Map<string, RemotePreset>>();
  // Per input value: the presets seen and whether some parent left it free.
  const mergeValues = (
    key: string, lists: Array<{ free: readonly IntrospectionInputValue[]; presets: Map<string, RemotePreset> | undefined }>,
    out: Map<string, Map<string, RemotePreset>>,
  ): IntrospectionInputValue[] => {
    const free = new Map<string, IntrospectionInputValue>();
    const presets = new Map<string, RemotePreset | null>();
    for (const l of lists) {
      for (const v of l.free) free.set(v.name, v);
      for (const [n, p] of l.presets ?? []) {
        const had = presets.get(n);
        presets.set(n, had === undefined ? p : had !== null && samePreset(had, p) ? had : null);
      }
    }
    const kept = new Map<string, RemotePreset>();
    // A free value wins; conflicting presets (null) are dropped.
    for (const [n, p] of presets) if (!free.has(n) && p) kept.set(n, p);
    if (kept.size > 0) out.set(key, kept);
    return [...free.values()];
  };
  for (const view of views) {
    for (const t of view.types.values()) {
      const have = types.get(t.name);
      if (!have) {
        types.set(t.name, t);
        continue;
      }
      if ((have.kind === 'OBJECT' || have.kind === 'INTERFACE') && (t.kind === 'OBJECT' || t.kind === 'INTERFACE')) {
        const fs = new Map(have.fields.map((f) => [f.name, f]));
        for (const f of t.fields) if (!fs.has(f.name)) fs.set(f.name, f);
        const ifs = new Map([...(have.interfaces ?? []), ...(t.interfaces ?? [])].map((i) => [i.name, i]));
        types.set(t.name, { ...have, fields: [...fs.values()], interfaces: [...ifs.values()] } as IntrospectionType);
      } else if (have.kind === 'ENUM' && t.kind === 'ENUM') {
        const vs = new Map([...have.enumValues, ...t.enumValues].map((v) => [v.name, v]));
        types.set(t.name, { ...have, enumValues: [...vs.values()] });
      } else if (have.kind === 'UNION' && t.kind === 'UNION') {
        const ps = new Map([...have.possibleTypes, ...t.possibleTypes].map((p) => [p.name, p]));
        types.set(t.name, { ...have, possibleTypes: [...ps.values()] });
      }
    }
  }
  // Arguments and input fields, merged across the parents that have the field / input type.
  for (const [name, t] of types) {
    if (t.kind === 'OBJECT' || t.kind === 'INTERFACE') {
      const fields = t.fields.map((f) => {
        const key = `${name}.${f.name}`;
        const lists = views.flatMap((v) => {
          const vt = v.types.get(name) as IntrospectionObjectType | undefined;
          const vf = vt?.fields?.find((x) => x.name === f.name);
          return vf ? [{ free: vf.args, presets: v.argPresets.get(key) }] : [];
        });
        return { ...f, args: mergeValues(key, lists, argPresets) };
      });
      types.set(name, { ...t, fields } as IntrospectionType);
    } else if (t.kind === 'INPUT_OBJECT') {
      const lists = views.flatMap((v) => {
        const vt = v.types.get(name) as IntrospectionInputObjectType | undefined;
        return vt ? [{ free: vt.inputFields, presets: v.inputPresets.get(name) }] : [];
      });
      types.set(name, { ...t, inputFields: mergeValues(name, lists, inputPresets) });
    }
  }
  const first = views[0].introspection.__schema;
  const mutation = views.map((v) => v.introspection.__schema.mutationType?.name).find((n) => n !== undefined);
  return viewOf(views[0].introspection, [...types.values()], first.queryType.name, mutation, argPresets, inputPresets);
}

const inherited = new WeakMap<SchemaCache, Map<string, RemoteRoleView | null>>();

/**
 * What `role` sees of `remote`: undefined for the whole remote (admin, or remote schema
 * permissions off), null when it sees none of it, else its view (inherited roles: the union of
 * their parents' views).
 */
export function remoteViewFor(cache: SchemaCache, remote: RemoteSchemaInfo, role: string): RemoteRoleView | null | undefined {
  if (!cache.remoteSchemaPermissions || role === ADMIN_ROLE) return undefined;
  const own = remote.permissions?.get(role);
  if (own) return own;
  const parents = cache.inheritedRoles?.get(role);
  if (!parents) return null;
  let memo = inherited.get(cache);
  if (!memo) inherited.set(cache, (memo = new Map()));
  const key = `${remote.name}\u0000${role}`;
  if (memo.has(key)) return memo.get(key)!;
  const views = parents.map((p) => remoteViewFor(cache, remote, p)).filter((v): v is RemoteRoleView => !!v);
  const view = views.length > 0 ? mergeRemoteViews(views) : null;
  memo.set(key, view);
  return view;
}

/** `remote` as `view` shows it (the same object shape remoteTypes and delegation read). */
export function remoteAsSeen(remote: RemoteSchemaInfo, view: RemoteRoleView): RemoteSchemaInfo {
  let byView = seen.get(remote);
  if (!byView) seen.set(remote, (byView = new WeakMap()));
  let r = byView.get(view);
  if (!r) byView.set(view, (r = { ...remote, introspection: view.introspection, types: view.types, queryRoot: view.queryRoot, mutationRoot: view.mutationRoot }));
  return r;
}
const seen = new WeakMap<RemoteSchemaInfo, WeakMap<RemoteRoleView, RemoteSchemaInfo>>();
