/**
 * Output types per table and role: the table object (`author`: columns, relationships,
 * `<rel>_aggregate`, computed fields), `author_aggregate`, `author_aggregate_fields` and the
 * `author_<op>_fields` types, plus the select arguments every list field takes.
 */
import {
  GraphQLBoolean, GraphQLFloat, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString,
  type GraphQLFieldConfig, type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLOutputType,
} from 'graphql';
import type { ComputedFieldInfo, RelationshipInfo, TableInfo } from '../../metadata/index.js';
import type { SchemaContext } from './context.js';
import type { SelectView } from './roleView.js';
import type { AggregateOpName, OutputFieldMeta } from './fieldMeta.js';
import { availableOps, boolExp, opColumns, orderBy, selectColumnEnum, visibleColumns } from './inputTypes.js';
import { describeWith, functionArgsTypeName, isGraphqlName, quoted, typeNames } from './names.js';
import { isJsonType } from '../../core/index.js';
import { displayName, graphqlName } from '../../core/index.js';
import { lazyFieldConfig } from './lazyRootType.js';

export const outField = (
  type: GraphQLOutputType,
  svc: OutputFieldMeta | undefined,
  opts: { description?: string | null; args?: GraphQLFieldConfigArgumentMap } = {},
): GraphQLFieldConfig<unknown, unknown> => ({
  type,
  description: opts.description ?? undefined,
  args: opts.args,
  extensions: svc ? { svc } : undefined,
});

/**
 * A root field entry made when first read (lazyRootType.ts): its tag and description at once, its type and
 * arguments (the table's types) on first use.
 */
export function lazyRootEntry(
  name: string, svc: OutputFieldMeta, description: string, make: () => Pick<GraphQLFieldConfig<unknown, unknown>, 'type' | 'args'>,
): [string, GraphQLFieldConfig<unknown, unknown>] {
  return [name, lazyFieldConfig({ extensions: { svc }, description }, () => {
    const { type, args } = make();
    return outField(type, svc, { description, args });
  })];
}

/** Hasura's introspection lists fields sorted by name; graphql-js lists them in definition order. */
export function sortedByName<T>(fields: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Marks `limit`/`offset`: their literals are checked by the planner (Hasura's messages for them). */
const ROW_COUNT = { svc: { rowCount: true } };

const nonNullList = (t: GraphQLOutputType) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t)));

/** `distinct_on, limit, offset, order_by, where` of a list field over `table`. */
export function selectArgs(ctx: SchemaContext, table: TableInfo): GraphQLFieldConfigArgumentMap {
  return {
    distinct_on: { type: new GraphQLList(new GraphQLNonNull(selectColumnEnum(ctx, table))), description: 'distinct select on columns' },
    limit: { type: GraphQLInt, description: 'limit the number of rows returned', extensions: ROW_COUNT },
    offset: { type: GraphQLInt, description: 'skip the first n rows. Use only with order_by', extensions: ROW_COUNT },
    order_by: { type: new GraphQLList(new GraphQLNonNull(orderBy(ctx, table))), description: 'sort the rows by one or more columns' },
    where: { type: boolExp(ctx, table), description: 'filter the rows returned' },
  };
}

/**
 * Whether an object relationship is nullable in the schema, as Hasura v1.3's `mkRelFld`
 * (`isManual || isNullable`): a manual relationship always (nothing guarantees the target row),
 * a foreign-key one when any of its local columns is nullable.
 */
function objectRelNullable(table: TableInfo, rel: RelationshipInfo): boolean {
  if (rel.manual) return true;
  return rel.join.mapping.some((m) => table.columnsByName.get(m.local)?.nullable ?? true);
}

/** `<fn>_args` for a function's (or computed field's) user-supplied arguments, or undefined when none. */
export function functionArgsType(
  ctx: SchemaContext, fnGqlName: string, inputArgs: ReadonlyArray<{ name: string; pgType: string }>,
): GraphQLInputObjectType | undefined {
  if (inputArgs.length === 0) return undefined;
  const name = functionArgsTypeName(fnGqlName);
  return ctx.memo(name, () => new GraphQLInputObjectType({
    name,
    fields: () => Object.fromEntries(inputArgs.map((a, i) => [a.name || `arg_${i + 1}`, { type: ctx.scalar(a.pgType) }])),
  }));
}

function computedField(ctx: SchemaContext, table: TableInfo, cf: ComputedFieldInfo): GraphQLFieldConfig<unknown, unknown> | undefined {
  const fnShown = displayName(cf.function);
  const argsType = functionArgsType(ctx, graphqlName(cf.function), cf.inputArgs);
  const args: GraphQLFieldConfigArgumentMap = {};
  if (argsType) args.args = { type: new GraphQLNonNull(argsType), description: `input parameters for function "${fnShown}"` };
  const description = describeWith(cf.comment, `A computed field, executes function "${fnShown}"`);
  if (cf.returns.kind === 'scalar') {
    if (isJsonType(cf.returns.pgType)) args.path = { type: GraphQLString, description: 'JSON select path' };
    return outField(ctx.scalar(cf.returns.pgType), { kind: 'computed_scalar', table, field: cf, pgType: cf.returns.pgType }, { description, args });
  }
  const remote = ctx.tableByName(cf.returns.table);
  if (!remote || !ctx.view(remote)) return undefined;
  Object.assign(args, selectArgs(ctx, remote));
  return outField(nonNullList(tableObject(ctx, remote)), { kind: 'computed_table', table, field: cf, remote }, { description, args });
}

/** The table's object type with the role's visible columns, relationships and computed fields. */
export function tableObject(ctx: SchemaContext, table: TableInfo): GraphQLObjectType {
  return ctx.memo(typeNames(table).object, () => new GraphQLObjectType({
    name: typeNames(table).object,
    description: describeWith(table.description, `columns and relationships of ${quoted(table.name)}`),
    interfaces: ctx.parts.tableInterfaces ? () => ctx.parts.tableInterfaces!(ctx, table) : undefined,
    fields: () => tableFields(ctx, table),
  }));
}

/** The fields of the table's object type (also those of a native query's own type, over its logical model). */
export function tableFields(ctx: SchemaContext, table: TableInfo): GraphQLFieldConfigMap<unknown, unknown> {
      const view = ctx.view(table);
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
      if (!view) return fields;
      // A column an inherited role sees in only some rows is null in the others: nullable then.
      const partial = ctx.isAdmin ? undefined : table.permissions.get(ctx.role)?.select?.columnConditions;
      for (const c of visibleColumns(view)) {
        const type = ctx.columnType(c);
        const nullable = c.nullable || partial?.has(c.name) === true;
        fields[c.gqlName] = outField(nullable ? type : new GraphQLNonNull(type), { kind: 'column', table, column: c }, {
          description: c.description,
          args: isJsonType(c.pgType) ? { path: { type: GraphQLString, description: 'JSON select path' } } : undefined,
        });
      }
      for (const { rel, remote } of view.relationships) {
        if (!isGraphqlName(rel.name)) continue;
        if (rel.type === 'object') {
          const t = tableObject(ctx, remote);
          fields[rel.name] = outField(objectRelNullable(table, rel) ? t : new GraphQLNonNull(t), { kind: 'object_rel', table, rel, remote }, {
            description: rel.comment ?? 'An object relationship',
          });
        } else {
          fields[rel.name] = outField(nonNullList(tableObject(ctx, remote)), { kind: 'array_rel', table, rel, remote }, {
            description: rel.comment ?? 'An array relationship',
            args: selectArgs(ctx, remote),
          });
          if (ctx.view(remote)?.allowAggregations) {
            fields[`${rel.name}_aggregate`] = outField(new GraphQLNonNull(aggregateObject(ctx, remote)), { kind: 'array_rel_aggregate', table, rel, remote }, {
              description: rel.comment ?? 'An aggregated array relationship',
              args: selectArgs(ctx, remote),
            });
          }
        }
      }
      for (const cf of view.computedFields) {
        if (!isGraphqlName(cf.name) || fields[cf.name]) continue;
        const f = computedField(ctx, table, cf);
        if (f) fields[cf.name] = f;
      }
      for (const b of ctx.parts.tableFields) {
        // A builder's field wins over a column of the same name (the Relay `id`); metadata keeps the rest apart.
        for (const [name, f] of b(ctx, table, view)) fields[name] = f;
      }
      return sortedByName(fields);
}

/** `<t>_aggregate { aggregate, nodes }`. */
export function aggregateObject(ctx: SchemaContext, table: TableInfo): GraphQLObjectType {
  const names = typeNames(table);
  return ctx.memo(names.aggregate, () => new GraphQLObjectType({
    name: names.aggregate,
    description: `aggregated selection of ${quoted(table.name)}`,
    fields: () => ({
      aggregate: outField(aggregateFieldsObject(ctx, table), { kind: 'agg_aggregate', table }),
      nodes: outField(nonNullList(tableObject(ctx, table)), { kind: 'agg_nodes', table }),
    }),
  }));
}

/** `<t>_aggregate_fields { count(columns, distinct), sum, avg, ..., max, min }`. */
export function aggregateFieldsObject(ctx: SchemaContext, table: TableInfo): GraphQLObjectType {
  const names = typeNames(table);
  return ctx.memo(names.aggregateFields, () => new GraphQLObjectType({
    name: names.aggregateFields,
    description: `aggregate fields of ${quoted(table.name)}`,
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {
        count: outField(GraphQLInt, { kind: 'agg_count', table }, {
          args: {
            columns: { type: new GraphQLList(new GraphQLNonNull(selectColumnEnum(ctx, table))) },
            distinct: { type: GraphQLBoolean },
          },
        }),
      };
      const view = ctx.view(table);
      if (view) for (const op of availableOps(view)) fields[op] = outField(opFieldsObject(ctx, table, op), { kind: 'agg_op', table, op });
      return sortedByName(fields);
    },
  }));
}

/** `<t>_<op>_fields`: one field per column the op applies to; `sum`/`max`/`min` keep the column type, the rest are Float. */
export function opFieldsObject(ctx: SchemaContext, table: TableInfo, op: AggregateOpName): GraphQLObjectType {
  const name = typeNames(table).opFields(op);
  return ctx.memo(name, () => new GraphQLObjectType({
    name,
    description: `aggregate ${op} on columns`,
    fields: () => {
      const view = ctx.view(table);
      const cols = view ? opColumns(view, op) : [];
      const keepsType = op === 'sum' || op === 'max' || op === 'min';
      return sortedByName(Object.fromEntries(cols.map((c) => [
        c.gqlName,
        outField(keepsType ? ctx.columnType(c) : GraphQLFloat, { kind: 'agg_op_column', table, op, column: c }),
      ])));
    },
  }));
}
