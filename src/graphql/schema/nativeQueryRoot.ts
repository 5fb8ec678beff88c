/**
 * Hasura v2's native queries on `query_root`: `<root_field_name>(args: <root_field_name>_arguments,
 * where, order_by, limit, offset, distinct_on): [<logical model>!]!`, for admin and for the roles
 * with a select permission on the logical model (inherited roles: the combined one). The logical
 * model's object, `_bool_exp`, `_order_by` and column enum are the table types (see roleView).
 */
import { GraphQLInputObjectType, GraphQLList, GraphQLNonNull, type GraphQLFieldConfigArgumentMap, type GraphQLInputType } from 'graphql';
import type { NativeQueryInfo } from '../../metadata/index.js';
import type { FieldEntry, SchemaContext } from './context.js';
import { isGraphqlName } from './names.js';
import { outField, selectArgs, tableObject } from './tableTypes.js';

/** The root field of one native query, or undefined when the role may not select its logical model. */
export function nativeQueryField(ctx: SchemaContext, nq: NativeQueryInfo): FieldEntry | undefined {
  const model = ctx.sc.logicalModels?.get(nq.returns);
  if (!model || !isGraphqlName(nq.rootFieldName) || !ctx.view(model)) return undefined;
  const args: GraphQLFieldConfigArgumentMap = {};
  if (nq.arguments.length > 0) {
    const name = `${nq.rootFieldName}_arguments`;
    const type = ctx.memo(name, () => new GraphQLInputObjectType({
      name,
      fields: () => Object.fromEntries(nq.arguments.map((a) => {
        const scalar: GraphQLInputType = ctx.scalar(a.pgType);
        return [a.name, { type: a.nullable ? scalar : new GraphQLNonNull(scalar), description: a.description ?? undefined }];
      })),
    }));
    const required = nq.arguments.some((a) => !a.nullable);
    args.args = { type: required ? new GraphQLNonNull(type) : type, description: `the arguments of the native query "${nq.rootFieldName}"` };
  }
  Object.assign(args, selectArgs(ctx, model));
  return [nq.rootFieldName, outField(new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(tableObject(ctx, model)))), { kind: 'native_query', nq, table: model }, {
    description: nq.description ?? `the rows of the native query "${nq.rootFieldName}"`,
    args,
  })];
}
