/**
 * Actions in a role's GraphQL schema (Hasura v1.3 `Hasura.GraphQL.Schema.Action`): custom types
 * become GraphQL types (memoised in the role's SchemaContext), each action a root field for the
 * roles that may see it (admin always, others with an action permission). A synchronous action or
 * a query action answers its output type (an object type, or a scalar or enum as Hasura v2 allows,
 * in lists or not); an asynchronous one answers `uuid!` and adds a query
 * field `<action>(id: uuid!)` whose type `<action>` has `id`, `created_at`, `errors` and `output`.
 * Relationships of output objects appear only for roles that can select the remote table.
 * Named in appState.ts's `ENGINE_PARTS` beside graphql/schema's own builders (graphql never imports actions).
 */
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull,
  GraphQLObjectType, GraphQLScalarType, GraphQLString,
  type GraphQLFieldConfig, type GraphQLInputType, type GraphQLOutputType, type GraphQLNamedType,
} from 'graphql';
import { qualifiedKey } from '../core/index.js';
import { selectArgs, tableObject, type FieldEntry, type SchemaContext } from '../graphql/index.js';
import { baseName, parseTypeRef, type ActionInfo, type CustomObjectInfo, type CustomTypesInfo, type TypeRef } from '../metadata/index.js';

const BUILTIN: Record<string, GraphQLScalarType> = { Int: GraphQLInt, Float: GraphQLFloat, String: GraphQLString, Boolean: GraphQLBoolean, ID: GraphQLID };

/** Tag on action root fields and on fields of output objects (read by actionPlan.ts). */
export type ActionFieldMeta =
  | { kind: 'ext:action'; action: ActionInfo }
  | { kind: 'ext:action_async_result'; action: ActionInfo }
  /** `list` is set on a nested object field: whether it holds a list of objects. */
  | { kind: 'ext:action_output_field'; name: string; list?: boolean }
  | { kind: 'ext:action_rel'; object: CustomObjectInfo; rel: CustomObjectInfo['relationships'][number] };

const tag = (m: ActionFieldMeta) => ({ svc: m });

export const canSee = (ctx: SchemaContext, a: ActionInfo): boolean => ctx.isAdmin || a.roles.has(ctx.role);

function wrap<T extends GraphQLInputType | GraphQLOutputType>(t: TypeRef, named: (name: string) => GraphQLNamedType): T {
  const inner = t.kind === 'named' ? named(t.name) : new GraphQLList(wrap(t.of, named));
  return (t.nonNull ? new GraphQLNonNull(inner as never) : inner) as T;
}

/** A named input or scalar type: built-in, custom scalar / enum / input object, or a Postgres scalar. */
function inputNamed(ctx: SchemaContext, ct: CustomTypesInfo, name: string): GraphQLNamedType {
  if (BUILTIN[name]) return BUILTIN[name];
  const defs = ct.defs;
  const s = (defs.scalars ?? []).find((x) => x.name === name);
  if (s) return ctx.memo(name, () => new GraphQLScalarType({ name, description: s.description ?? undefined }));
  const e = (defs.enums ?? []).find((x) => x.name === name);
  if (e) {
    return ctx.memo(name, () => new GraphQLEnumType({
      name, description: e.description ?? undefined,
      values: Object.fromEntries(e.values.map((v) => [v.value, { value: v.value, description: v.description ?? undefined, deprecationReason: v.is_deprecated ? 'deprecated' : undefined }])),
    }));
  }
  const io = (defs.input_objects ?? []).find((x) => x.name === name);
  if (io) {
    return ctx.memo(name, () => new GraphQLInputObjectType({
      name, description: io.description ?? undefined,
      fields: () => Object.fromEntries(io.fields.map((f) => {
        const t = parseTypeRef(f.type)!;
        return [f.name, { type: wrap<GraphQLInputType>(t, (n) => inputNamed(ctx, ct, n)), description: f.description ?? undefined }];
      })),
    }));
  }
  return ctx.scalar(name);
}

/** The GraphQL object type of a custom output object (relationship fields per the role's permissions). */
export function outputObject(ctx: SchemaContext, ct: CustomTypesInfo, ob: CustomObjectInfo): GraphQLObjectType {
  return ctx.memo(ob.name, () => new GraphQLObjectType({
    name: ob.name,
    description: ob.description ?? undefined,
    fields: () => {
      const fields: Record<string, GraphQLFieldConfig<unknown, unknown>> = {};
      for (const f of ob.fields) {
        // A field of another object type (Hasura v2's nested object) is that object's type.
        const nested = ct.objects.get(baseName(f.type));
        fields[f.name] = {
          type: wrap<GraphQLOutputType>(f.type, (n) => (nested ? outputObject(ctx, ct, nested) : inputNamed(ctx, ct, n))),
          description: f.description ?? undefined,
          extensions: tag(nested ? { kind: 'ext:action_output_field', name: f.name, list: f.type.kind === 'list' } : { kind: 'ext:action_output_field', name: f.name }),
        };
      }
      for (const rel of ob.relationships) {
        // A table of another source (Hasura v2's `source`): its type made over that source's cache.
        const sc = rel.source === undefined ? ctx.sc : ctx.sc.sourceCaches?.get(rel.source);
        const on = !sc || sc === ctx.sc ? ctx : ctx.forSource(sc);
        const table = sc?.tables.get(qualifiedKey(rel.remoteTable));
        if (!table || !on.view(table)) continue;
        const obj = tableObject(on, table);
        fields[rel.name] = rel.type === 'object'
          ? { type: obj, extensions: tag({ kind: 'ext:action_rel', object: ob, rel }) }
          : { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(obj))), args: selectArgs(on, table), extensions: tag({ kind: 'ext:action_rel', object: ob, rel }) };
      }
      return fields;
    },
  }));
}

/** The output type of an action (its object type, or its scalar or enum), wrapped as declared. */
function outputType(ctx: SchemaContext, ct: CustomTypesInfo, a: ActionInfo, ref: TypeRef = a.output): GraphQLOutputType {
  const ob = a.outputObject;
  return wrap<GraphQLOutputType>(ref, (n) => (ob ? outputObject(ctx, ct, ob) : inputNamed(ctx, ct, n)));
}

function args(ctx: SchemaContext, ct: CustomTypesInfo, a: ActionInfo) {
  return Object.fromEntries(a.arguments.map((x) => [x.name, { type: wrap<GraphQLInputType>(x.type, (n) => inputNamed(ctx, ct, n)), description: x.description ?? undefined }]));
}

const describe = (a: ActionInfo) => a.meta.comment ?? undefined;

/** Action mutation root fields visible to the role. */
export function actionMutationFields(ctx: SchemaContext): FieldEntry[] {
  const ct = ctx.sc.customTypes;
  const out: FieldEntry[] = [];
  for (const a of ctx.sc.actions?.values() ?? []) {
    if (a.meta.definition.type !== 'mutation' || !canSee(ctx, a) || !ct) continue;
    const async = a.meta.definition.kind === 'asynchronous';
    out.push([a.name, {
      type: async ? new GraphQLNonNull(ctx.scalar('uuid')) : outputType(ctx, ct, a),
      args: args(ctx, ct, a),
      description: describe(a),
      extensions: tag({ kind: 'ext:action', action: a }),
    }]);
  }
  return out;
}

/** Action query root fields (and async results) visible to the role. */
export function actionQueryFields(ctx: SchemaContext): FieldEntry[] {
  const ct = ctx.sc.customTypes;
  const out: FieldEntry[] = [];
  for (const a of ctx.sc.actions?.values() ?? []) {
    if (!canSee(ctx, a) || !ct) continue;
    const def = a.meta.definition;
    if (def.type === 'query') {
      out.push([a.name, { type: outputType(ctx, ct, a), args: args(ctx, ct, a), description: describe(a), extensions: tag({ kind: 'ext:action', action: a }) }]);
    } else if (def.kind === 'asynchronous') {
      const result = ctx.memo(a.name, () => new GraphQLObjectType({
        name: a.name,
        fields: () => ({
          id: { type: new GraphQLNonNull(ctx.scalar('uuid')), extensions: tag({ kind: 'ext:action_output_field', name: 'id' }) },
          created_at: { type: new GraphQLNonNull(ctx.scalar('timestamptz')), extensions: tag({ kind: 'ext:action_output_field', name: 'created_at' }) },
          errors: { type: ctx.scalar('json'), extensions: tag({ kind: 'ext:action_output_field', name: 'errors' }) },
          output: { type: outputType(ctx, ct, a, { ...a.output, nonNull: false }), extensions: tag({ kind: 'ext:action_output_field', name: 'output' }) },
        }),
      }));
      out.push([a.name, {
        type: result,
        args: { id: { type: new GraphQLNonNull(ctx.scalar('uuid')) } },
        description: describe(a),
        extensions: tag({ kind: 'ext:action_async_result', action: a }),
      }]);
    }
  }
  return out;
}
