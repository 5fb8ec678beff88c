/**
 * Remote schemas in a role's GraphQL schema (every role sees them whole, as in v1.3; with remote
 * schema permissions on, a role sees its permission's part of each, or nothing): the remote's
 * types rebuilt from its introspection inside the role's type registry (a type named like one of
 * the database's, `timestamptz` or an identical `person`, is the same type), its query and mutation
 * root fields tagged `ext:remote`, and remote-relationship fields on table types tagged
 * `ext:remote_rel` (arguments fixed by the relationship are removed from the field's arguments,
 * partly fixed input objects renamed `<Type>_remote_rel_<schema>_<table><relationship>`); the
 * remote's object types carry their relationships to tables (`ext:remote_type_rel`).
 * The remote schemas come from the schema cache: this module never calls a remote.
 */
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLString, GraphQLInputObjectType, GraphQLInterfaceType, GraphQLList, GraphQLNonNull,
  GraphQLObjectType, GraphQLScalarType, GraphQLUnionType, parseValue, valueFromAST,
  type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap, type GraphQLInputType,
  type GraphQLNamedType, type GraphQLOutputType, type GraphQLType, type IntrospectionField, type IntrospectionInputTypeRef,
  type IntrospectionInputValue, type IntrospectionObjectType, type IntrospectionType, type IntrospectionTypeRef,
} from 'graphql';
import { qualifiedKey } from '../../core/index.js';
import { customizeField, customizedRemote, remoteAsSeen, remoteViewFor, type RemoteRelInfo, type RemoteSchemaInfo, type TableInfo } from '../../metadata/index.js';
import type { SchemaContext } from './context.js';
import type { FieldEntry } from './queryRoot.js';
import type { SelectView } from './roleView.js';
import type { OutputFieldMeta } from './fieldMeta.js';
import { selectArgs, tableObject } from './tableTypes.js';

const BUILTINS: Record<string, GraphQLScalarType> = { Int: GraphQLInt, Float: GraphQLFloat, String: GraphQLString, Boolean: GraphQLBoolean, ID: GraphQLID };

/** Turns one remote's introspection types into graphql-js types of the role schema. */
class RemoteTypes {
  constructor(private readonly ctx: SchemaContext, private readonly remote: RemoteSchemaInfo) {}

  /** Every named type of the remote (so implementations of interfaces are in the schema too). */
  all(): void {
    for (const t of this.remote.introspection.__schema.types) if (!t.name.startsWith('__')) this.named(t.name);
  }

  named(name: string): GraphQLNamedType {
    const builtin = BUILTINS[name];
    if (builtin) return builtin;
    const t = this.remote.types.get(name);
    if (!t) return this.ctx.memo(name, () => new GraphQLScalarType({ name }));
    return this.ctx.memo(name, () => this.make(t));
  }

  private make(t: IntrospectionType): GraphQLNamedType {
    const description = t.description ?? undefined;
    switch (t.kind) {
      case 'SCALAR':
        return new GraphQLScalarType({ name: t.name, description });
      case 'ENUM':
        return new GraphQLEnumType({
          name: t.name, description,
          values: Object.fromEntries(t.enumValues.map((v) => [v.name, { value: v.name, description: v.description ?? undefined, deprecationReason: v.deprecationReason ?? undefined }])),
        });
      case 'INPUT_OBJECT':
        return new GraphQLInputObjectType({ name: t.name, description, fields: () => this.inputFields(t.inputFields) });
      case 'OBJECT':
        return new GraphQLObjectType({
          name: t.name, description,
          interfaces: () => t.interfaces.map((i) => this.named(i.name) as GraphQLInterfaceType),
          fields: () => ({ ...this.fields(t.fields), ...this.tableRelFields(t) }),
        });
      case 'INTERFACE':
        return new GraphQLInterfaceType({ name: t.name, description, fields: () => this.fields(t.fields) });
      case 'UNION':
        return new GraphQLUnionType({ name: t.name, description, types: () => t.possibleTypes.map((p) => this.named(p.name) as GraphQLObjectType) });
    }
  }

  /**
   * The relationships of an object type to tables (Hasura v2's remote schema remote relationships):
   * the target's object type (nullable) or a list of it with the select arguments, for a role that
   * sees every join field of the type and may select the target table.
   */
  private tableRelFields(t: IntrospectionObjectType): GraphQLFieldConfigMap<unknown, unknown> {
    // Resolved on default's cache, whichever source's types are being made (the type is one for all).
    const sc = this.ctx.sc.sourceCaches?.get('default') ?? this.ctx.sc;
    const c = this.remote.customizer;
    const own = c ? ([...c.typeNames].find(([, engine]) => engine === t.name)?.[0] ?? t.name) : t.name;
    const rels = sc.remoteTypeRelationships?.get(this.remote.name)?.get(own);
    const out: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const rel of rels ?? []) {
      const fieldOf = (name: string) => (c ? c.fieldNames.get(own)?.get(name) ?? name : name);
      if (!rel.mapping.every((m) => t.fields.some((f) => f.name === fieldOf(m.local)))) continue;
      const targetCache = sc.sourceCaches?.get(rel.source) ?? (rel.source === 'default' ? sc : undefined);
      const table = targetCache?.tables.get(qualifiedKey(rel.target));
      if (!targetCache || !table) continue;
      const on = targetCache === this.ctx.sc ? this.ctx : this.ctx.forSource(targetCache);
      if (!on.view(table)) continue;
      const extensions = { svc: { kind: 'ext:remote_type_rel', rel, remote: table } satisfies OutputFieldMeta };
      out[rel.name] = rel.type === 'object'
        ? { type: tableObject(on, table), description: 'A remote relationship', extensions }
        : { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(tableObject(on, table)))), args: selectArgs(on, table), description: 'A remote relationship', extensions };
    }
    return out;
  }

  type(ref: IntrospectionTypeRef): GraphQLType {
    if (ref.kind === 'NON_NULL') return new GraphQLNonNull(this.type(ref.ofType) as GraphQLOutputType);
    if (ref.kind === 'LIST') return new GraphQLList(this.type(ref.ofType));
    return this.named(ref.name);
  }

  args(list: readonly IntrospectionInputValue[]): GraphQLFieldConfigArgumentMap {
    return Object.fromEntries(list.map((a) => [a.name, this.inputValue(a)]));
  }

  inputValue(a: IntrospectionInputValue, type?: GraphQLInputType): { type: GraphQLInputType; description?: string; defaultValue?: unknown } {
    const t = type ?? (this.type(a.type) as GraphQLInputType);
    const out: { type: GraphQLInputType; description?: string; defaultValue?: unknown } = { type: t, description: a.description ?? undefined };
    if (a.defaultValue !== null && a.defaultValue !== undefined) {
      try {
        out.defaultValue = valueFromAST(parseValue(a.defaultValue), t);
      } catch {
        // A default the remote printed in a form we cannot read: leave it to the remote.
      }
    }
    return out;
  }

  private inputFields(list: readonly IntrospectionInputValue[]): GraphQLInputFieldConfigMap {
    return Object.fromEntries(list.map((a) => [a.name, this.inputValue(a)]));
  }

  fields(list: readonly IntrospectionField[], meta?: (f: IntrospectionField) => OutputFieldMeta): GraphQLFieldConfigMap<unknown, unknown> {
    return Object.fromEntries(list.map((f) => [f.name, {
      type: this.type(f.type) as GraphQLOutputType,
      description: f.description ?? undefined,
      deprecationReason: f.deprecationReason ?? undefined,
      args: this.args(f.args),
      extensions: meta ? { svc: meta(f) } : undefined,
    }]));
  }

  /**
   * The arguments of a remote-relationship field: the remote field's, minus those the relationship
   * fixes; an input object it fixes in part becomes a renamed copy without the fixed fields.
   */
  strippedArgs(params: readonly IntrospectionInputValue[], provided: Record<string, unknown>, suffix: string): GraphQLFieldConfigArgumentMap {
    const out: GraphQLFieldConfigArgumentMap = {};
    // Sorted by name, as Hasura lists a remote relationship's arguments.
    for (const p of [...params].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (!(p.name in provided)) {
        out[p.name] = this.inputValue(p);
        continue;
      }
      const v = provided[p.name];
      if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
      out[p.name] = this.inputValue(p, this.strippedType(p.type, v as Record<string, unknown>, suffix));
    }
    return out;
  }

  private strippedType(ref: IntrospectionInputTypeRef, provided: Record<string, unknown>, suffix: string): GraphQLInputType {
    if (ref.kind === 'NON_NULL') return new GraphQLNonNull(this.strippedType(ref.ofType as IntrospectionInputTypeRef, provided, suffix) as GraphQLInputObjectType);
    if (ref.kind === 'LIST') return this.type(ref) as GraphQLInputType;
    const t = this.remote.types.get(ref.name);
    if (!t || t.kind !== 'INPUT_OBJECT') return this.named(ref.name) as GraphQLInputType;
    const name = `${t.name}${suffix}`;
    return this.ctx.memo(name, () => new GraphQLInputObjectType({
      name,
      description: t.description ?? undefined,
      fields: () => this.strippedArgs(t.inputFields, provided, suffix) as GraphQLInputFieldConfigMap,
    }));
  }
}

const remoteTypesOf = new WeakMap<SchemaContext, Map<string, RemoteTypes>>();

function typesFor(ctx: SchemaContext, remote: RemoteSchemaInfo): RemoteTypes {
  let byRemote = remoteTypesOf.get(ctx);
  if (!byRemote) remoteTypesOf.set(ctx, (byRemote = new Map()));
  let rt = byRemote.get(remote.name);
  if (!rt) {
    byRemote.set(remote.name, (rt = new RemoteTypes(ctx, remote)));
    rt.all();
  }
  return rt;
}

/**
 * The remote as the role sees it, under the remote's own names: whole (admin, or remote schema
 * permissions off), through its permission (a subset of the remote's types), or not at all (undefined).
 */
function remoteRawSeenBy(ctx: SchemaContext, remote: RemoteSchemaInfo): RemoteSchemaInfo | undefined {
  const view = remoteViewFor(ctx.sc, remote, ctx.role);
  if (view === undefined) return remote;
  return view === null ? undefined : remoteAsSeen(remote, view);
}

/** The remote as the role sees it (remoteRawSeenBy), under the engine's names (its customization applied). */
export function remoteSeenBy(ctx: SchemaContext, remote: RemoteSchemaInfo): RemoteSchemaInfo | undefined {
  const raw = remoteRawSeenBy(ctx, remote);
  return raw && customizedRemote(raw);
}

/** The root fields of the remote schemas' `root` type, for the role. */
export function remoteSchemaRootFields(root: 'query' | 'mutation') {
  return (ctx: SchemaContext): FieldEntry[] => {
    const out: FieldEntry[] = [];
    for (const upstream of ctx.sc.remoteSchemas?.values() ?? []) {
      const remote = remoteSeenBy(ctx, upstream);
      if (!remote) continue;
      const obj = root === 'query' ? remote.queryRoot : remote.mutationRoot;
      if (!obj) continue;
      const rt = typesFor(ctx, remote);
      const namespace = remote.customizer?.namespace;
      if (namespace) {
        // Hasura's root-field namespace: one field whose type is the (renamed) root type; none when it is empty.
        if (obj.fields.length === 0) continue;
        out.push([namespace, {
          type: new GraphQLNonNull(rt.named(obj.name) as GraphQLObjectType),
          extensions: { svc: { kind: 'ext:remote', remote: remote.name, namespace: true } },
        }]);
        continue;
      }
      const fields = rt.fields(obj.fields, () => ({ kind: 'ext:remote', remote: remote.name }));
      for (const [name, f] of Object.entries(fields)) out.push([name, f]);
    }
    return out;
  };
}

/** Remote-relationship fields of `table` the role may see (it selects every join column). */
/** Remote relationships of a table, as fields of its object type. */
export function remoteRelFields(ctx: SchemaContext, table: TableInfo, view: SelectView): FieldEntry[] {
  const out: FieldEntry[] = [];
  if (!table.remoteRelationships) return out;
  const visible = new Set(view.columns.map((c) => c.name));
  for (const rel of table.remoteRelationships.values()) {
    if (!rel.hasuraFields.every((c) => visible.has(c))) continue;
    const upstream = ctx.sc.remoteSchemas?.get(rel.remoteSchema);
    // The relationship's path is in the remote's own names; its field's types in the engine's.
    const raw = upstream ? remoteRawSeenBy(ctx, upstream) : undefined;
    const found = raw ? lastFieldOf(raw, rel) : undefined;
    if (!raw || !found) continue;
    const remote = customizedRemote(raw);
    const field = raw.customizer ? customizeField(found.parent, found.field, raw.customizer) : found.field;
    const rt = typesFor(ctx, remote);
    const last = rel.path[rel.path.length - 1];
    out.push([rel.name, {
      type: rt.type(field.type) as GraphQLOutputType,
      description: field.description ?? undefined,
      args: rt.strippedArgs(field.args, last.arguments, `_remote_rel_${rel.lhsIdentifier}${rel.name}`),
      extensions: { svc: { kind: 'ext:remote_rel', table, rel } satisfies OutputFieldMeta },
    }]);
  }
  return out;
}

/** The remote field at the end of a relationship's path (remote's names). */
export function lastField(remote: RemoteSchemaInfo, rel: RemoteRelInfo): IntrospectionField | undefined {
  return lastFieldOf(remote, rel)?.field;
}

/** The remote field at the end of a relationship's path and the name of the type holding it. */
function lastFieldOf(remote: RemoteSchemaInfo, rel: RemoteRelInfo): { field: IntrospectionField; parent: string } | undefined {
  let parent = remote.queryRoot;
  let field: IntrospectionField | undefined;
  let holder = '';
  for (const step of rel.path) {
    if (!parent) return undefined;
    holder = parent.name;
    field = parent.fields.find((f) => f.name === step.name);
    if (!field) return undefined;
    // Every argument the relationship fixes must be one the role may give (not hidden, not preset).
    for (const a of Object.keys(step.arguments)) if (!field.args.some((x) => x.name === a)) return undefined;
    let t: IntrospectionTypeRef = field.type;
    while (t.kind === 'NON_NULL' || t.kind === 'LIST') t = t.ofType;
    const next = remote.types.get(t.name);
    parent = next && next.kind === 'OBJECT' ? next : null;
  }
  return field && { field, parent: holder };
}
