/**
 * Hasura v2's native queries on `query_root`: `<root_field_name>(args: <root_field_name>_arguments,
 * where, order_by, limit, offset, distinct_on): [<type>!]!`, for admin and for the roles with a
 * select permission on the logical model (inherited roles: the combined one). The logical model's
 * object, `_bool_exp`, `_order_by` and column enum are the table types (see roleView). A native
 * query with relationships has an object type of its own, named after its root field as in Hasura:
 * the model's fields and one field per relationship whose target the role may select:
 *   object → table: `rel: <table>` (nullable, no arguments)
 *   array → table: `rel(where, order_by, limit, offset, distinct_on): [<table>!]!`
 *   object → native query: `rel(args): <target type>` (nullable)
 *   array → native query: `rel(args, where, order_by, limit, offset, distinct_on): [<target type>!]`
 * Relationships are not part of the model's `_bool_exp` / `_order_by` (as in Hasura).
 */
import {
  GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType,
  type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLInputType, type GraphQLOutputType,
} from 'graphql';
import type { NativeQueryInfo, NativeQueryRelInfo, TableInfo } from '../../metadata/index.js';
import type { FieldEntry, SchemaContext } from './context.js';
import { isGraphqlName } from './names.js';
import { outField, selectArgs, sortedByName, tableFields, tableObject } from './tableTypes.js';

const nonNullList = (t: GraphQLOutputType) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t)));

/** The `args` argument of a native query's field (`<root_field_name>_arguments`), when it has arguments. */
function argsArgument(ctx: SchemaContext, nq: NativeQueryInfo): GraphQLFieldConfigArgumentMap {
  if (nq.arguments.length === 0) return {};
  const name = `${nq.rootFieldName}_arguments`;
  const type = ctx.memo(name, () => new GraphQLInputObjectType({
    name,
    fields: () => Object.fromEntries(nq.arguments.map((a) => {
      const scalar: GraphQLInputType = ctx.scalar(a.pgType);
      return [a.name, { type: a.nullable ? scalar : new GraphQLNonNull(scalar), description: a.description ?? undefined }];
    })),
  }));
  const required = nq.arguments.some((a) => !a.nullable);
  return { args: { type: required ? new GraphQLNonNull(type) : type, description: `the arguments of the native query "${nq.rootFieldName}"` } };
}

/** The object type of a native query's rows: its logical model's, or (with relationships) its own. */
export function nativeQueryObject(ctx: SchemaContext, nq: NativeQueryInfo, model: TableInfo): GraphQLObjectType {
  if (!nq.relationships) return tableObject(ctx, model);
  return ctx.memo(nq.rootFieldName, () => new GraphQLObjectType({
    name: nq.rootFieldName,
    description: model.description ?? `columns and relationships of the native query "${nq.rootFieldName}"`,
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = tableFields(ctx, model);
      for (const rel of nq.relationships ?? []) {
        const f = relationshipField(ctx, model, rel);
        if (f) fields[rel.name] = f;
      }
      return sortedByName(fields);
    },
  }));
}

function relationshipField(ctx: SchemaContext, model: TableInfo, rel: NativeQueryRelInfo) {
  const description = rel.comment ?? (rel.type === 'object' ? 'An object relationship' : 'An array relationship');
  if (rel.target.kind === 'table') {
    const remote = ctx.tableByName(rel.target.table);
    if (!remote || !ctx.view(remote)) return undefined;
    const meta = { kind: 'native_query_rel' as const, table: model, rel, remote };
    return rel.type === 'object'
      ? outField(tableObject(ctx, remote), meta, { description })
      : outField(nonNullList(tableObject(ctx, remote)), meta, { description, args: selectArgs(ctx, remote) });
  }
  const target = ctx.sc.nativeQueries?.get(rel.target.name);
  const remote = target && ctx.sc.logicalModels?.get(target.returns);
  if (!target || !remote || !ctx.view(remote)) return undefined;
  const meta = { kind: 'native_query_rel' as const, table: model, rel, remote, target };
  const type = nativeQueryObject(ctx, target, remote);
  return rel.type === 'object'
    ? outField(type, meta, { description, args: argsArgument(ctx, target) })
    : outField(new GraphQLList(new GraphQLNonNull(type)), meta, { description, args: { ...argsArgument(ctx, target), ...selectArgs(ctx, remote) } });
}

/** The root field of one native query, or undefined when the role may not select its logical model. */
export function nativeQueryField(ctx: SchemaContext, nq: NativeQueryInfo): FieldEntry | undefined {
  const model = ctx.sc.logicalModels?.get(nq.returns);
  if (!model || !isGraphqlName(nq.rootFieldName) || !ctx.view(model)) return undefined;
  const args: GraphQLFieldConfigArgumentMap = { ...argsArgument(ctx, nq), ...selectArgs(ctx, model) };
  return [nq.rootFieldName, outField(nonNullList(nativeQueryObject(ctx, nq, model)), { kind: 'native_query', nq, table: model }, {
    description: nq.description ?? `the rows of the native query "${nq.rootFieldName}"`,
    args,
  })];
}
