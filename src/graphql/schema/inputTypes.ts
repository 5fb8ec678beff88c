/**
 * Input types of the select arguments, per table and role: `<t>_bool_exp`, the per-scalar
 * `<T>_comparison_exp`, `<t>_order_by`, `<t>_aggregate_order_by`, `<t>_<op>_order_by` and the
 * `<t>_select_column` enum. Only what the role's select permission shows appears in them.
 */
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLString,
  type GraphQLInputFieldConfig, type GraphQLInputFieldConfigMap, type GraphQLInputType,
} from 'graphql';
import type { ColumnInfo, TableInfo } from '../../metadata/index.js';
import type { SchemaContext } from './context.js';
import { COMPARABLE_AGG_OPS, NUMERIC_AGG_OPS, type AggregateOpName, type EnumMeta, type InputFieldMeta } from './fieldMeta.js';
import { comparisonExpName, isGraphqlName, quoted, typeNames } from './names.js';
import { isComparableType, isJsonbType, isNumericType, isStringType } from '../../core/index.js';
import type { SelectView } from './roleView.js';

const field = (type: GraphQLInputType, svc?: InputFieldMeta, description?: string): GraphQLInputFieldConfig => ({
  type,
  description,
  extensions: svc ? { svc } : undefined,
});

const sortedFields = (entries: Array<[string, GraphQLInputFieldConfig]>): GraphQLInputFieldConfigMap =>
  Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Columns of the view with names usable in GraphQL. */
export const visibleColumns = (view: SelectView): ColumnInfo[] => view.columns.filter((c) => isGraphqlName(c.gqlName));

/** `<T>_comparison_exp` for a column's type (shared by every column of that type). */
export function comparisonExp(ctx: SchemaContext, column: ColumnInfo): GraphQLInputObjectType {
  const colType = ctx.columnType(column);
  const name = comparisonExpName(colType.name);
  return ctx.memo(name, () => new GraphQLInputObjectType({
    name,
    description: `expression to compare columns of type ${colType.name}. All fields are combined with logical 'AND'.`,
    fields: () => {
      const list = new GraphQLList(new GraphQLNonNull(colType));
      const entries: Array<[string, GraphQLInputFieldConfig]> = [
        ['_eq', field(colType)], ['_neq', field(colType)],
        ['_in', field(list)], ['_nin', field(list)],
        ['_is_null', field(GraphQLBoolean)],
      ];
      const isEnumRef = colType !== ctx.scalar(column.pgType);
      if (!isEnumRef) {
        for (const op of ['_gt', '_lt', '_gte', '_lte']) entries.push([op, field(colType)]);
        if (isStringType(column.pgType)) {
          for (const op of ['_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar']) entries.push([op, field(GraphQLString)]);
        }
        if (isJsonbType(column.pgType)) {
          const jsonb = ctx.scalar('jsonb');
          const strings = new GraphQLList(new GraphQLNonNull(GraphQLString));
          entries.push(
            ['_contains', field(jsonb, undefined, 'does the column contain the given json value at the top level')],
            ['_contained_in', field(jsonb, undefined, 'is the column contained in the given json value')],
            ['_has_key', field(GraphQLString, undefined, 'does the string exist as a top-level key in the column')],
            ['_has_keys_any', field(strings, undefined, 'do any of these strings exist as top-level keys in the column')],
            ['_has_keys_all', field(strings, undefined, 'do all of these strings exist as top-level keys in the column')],
          );
        }
      }
      return sortedFields(entries);
    },
  }));
}

/** `<t>_bool_exp`: `_and/_or/_not`, a comparison per visible column, a nested exp per visible relationship. */
export function boolExp(ctx: SchemaContext, table: TableInfo): GraphQLInputObjectType {
  const names = typeNames(table);
  return ctx.memo(names.boolExp, () => {
    const self: GraphQLInputObjectType = new GraphQLInputObjectType({
      name: names.boolExp,
      description: `Boolean expression to filter rows from the table ${quoted(table.name)}. All fields are combined with a logical 'AND'.`,
      fields: () => {
        const view = ctx.view(table);
        const entries: Array<[string, GraphQLInputFieldConfig]> = [
          ['_and', field(new GraphQLList(self), { kind: 'bool_and' })],
          ['_not', field(self, { kind: 'bool_not' })],
          ['_or', field(new GraphQLList(self), { kind: 'bool_or' })],
        ];
        if (view) {
          for (const c of visibleColumns(view)) entries.push([c.gqlName, field(comparisonExp(ctx, c), { kind: 'bool_column', column: c })]);
          for (const { rel, remote } of view.relationships) {
            if (!isGraphqlName(rel.name)) continue;
            entries.push([rel.name, field(boolExp(ctx, remote), { kind: 'bool_rel', rel, remote })]);
          }
        }
        return sortedFields(entries);
      },
    });
    return self;
  });
}

/** `<t>_select_column`: the visible columns, for `distinct_on` and `count(columns:)`. */
export function selectColumnEnum(ctx: SchemaContext, table: TableInfo): GraphQLEnumType {
  const names = typeNames(table);
  return ctx.memo(names.selectColumn, () => {
    const view = ctx.view(table);
    const cols = view ? visibleColumns(view) : [];
    return new GraphQLEnumType({
      name: names.selectColumn,
      description: `select columns of table ${quoted(table.name)}`,
      extensions: { svc: { kind: 'column_enum', table } satisfies EnumMeta },
      values: Object.fromEntries(cols.map((c) => [c.gqlName, { value: c.name, description: 'column name' }]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    });
  });
}

/** `<t>_order_by`: columns, object relationships, and `<rel>_aggregate` of aggregatable array relationships. */
export function orderBy(ctx: SchemaContext, table: TableInfo): GraphQLInputObjectType {
  const names = typeNames(table);
  return ctx.memo(names.orderBy, () => new GraphQLInputObjectType({
    name: names.orderBy,
    description: `ordering options when selecting data from ${quoted(table.name)}`,
    fields: () => {
      const view = ctx.view(table);
      const entries: Array<[string, GraphQLInputFieldConfig]> = [];
      if (view) {
        for (const c of visibleColumns(view)) entries.push([c.gqlName, field(ctx.orderByEnum(), { kind: 'order_column', column: c })]);
        for (const { rel, remote } of view.relationships) {
          if (!isGraphqlName(rel.name)) continue;
          if (rel.type === 'object') {
            entries.push([rel.name, field(orderBy(ctx, remote), { kind: 'order_object_rel', rel, remote })]);
          } else if (ctx.view(remote)?.allowAggregations) {
            entries.push([`${rel.name}_aggregate`, field(aggregateOrderBy(ctx, remote), { kind: 'order_array_agg', rel, remote })]);
          }
        }
      }
      return sortedFields(entries);
    },
  }));
}

/** The columns an aggregate op applies to: numeric ones for sum/avg/..., comparable ones for max/min. */
export function opColumns(view: SelectView, op: AggregateOpName): ColumnInfo[] {
  const numeric = (NUMERIC_AGG_OPS as readonly string[]).includes(op);
  return visibleColumns(view).filter((c) => !c.enumTable && (numeric ? isNumericType(c.pgType) : isComparableType(c.pgType)));
}

/** Aggregate ops that have at least one column in this view, in Hasura's order. */
export function availableOps(view: SelectView): AggregateOpName[] {
  return [...NUMERIC_AGG_OPS, ...COMPARABLE_AGG_OPS].filter((op) => opColumns(view, op).length > 0);
}

/** `<t>_aggregate_order_by`: `count` and one `<t>_<op>_order_by` per available op. */
export function aggregateOrderBy(ctx: SchemaContext, table: TableInfo): GraphQLInputObjectType {
  const names = typeNames(table);
  return ctx.memo(names.aggregateOrderBy, () => new GraphQLInputObjectType({
    name: names.aggregateOrderBy,
    description: `order by aggregate values of table ${quoted(table.name)}`,
    fields: () => {
      const view = ctx.view(table);
      const entries: Array<[string, GraphQLInputFieldConfig]> = [['count', field(ctx.orderByEnum(), { kind: 'order_agg_count' })]];
      if (view) {
        for (const op of availableOps(view)) entries.push([op, field(opOrderBy(ctx, table, op), { kind: 'order_agg_op', op })]);
      }
      return sortedFields(entries);
    },
  }));
}

export function opOrderBy(ctx: SchemaContext, table: TableInfo, op: AggregateOpName): GraphQLInputObjectType {
  const name = typeNames(table).opOrderBy(op);
  return ctx.memo(name, () => new GraphQLInputObjectType({
    name,
    description: `order by ${op}() on columns of table ${quoted(table.name)}`,
    fields: () => {
      const view = ctx.view(table);
      const cols = view ? opColumns(view, op) : [];
      return sortedFields(cols.map((c) => [c.gqlName, field(ctx.orderByEnum(), { kind: 'order_agg_op_column', column: c })]));
    },
  }));
}
