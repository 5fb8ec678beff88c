/**
 * The input and output types of mutations, per table and role, named and described as in
 * Hasura v1.3: `<t>_insert_input`, `<t>_obj_rel_insert_input`, `<t>_arr_rel_insert_input`,
 * `<t>_on_conflict`, `<t>_constraint`, `<t>_update_column`, `<t>_set_input`, `<t>_inc_input`,
 * `<t>_append_input`, `<t>_prepend_input`, `<t>_delete_key_input`, `<t>_delete_elem_input`,
 * `<t>_delete_at_path_input`, `<t>_pk_columns_input`, `<t>_mutation_response`.
 *
 * `<t>_on_conflict` also takes the deprecated `action: conflict_action` of pre-1.0 clients
 * (`ignore` = do nothing), so `update_columns` defaults to `[]`.
 */
import {
  GraphQLEnumType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString,
  type GraphQLInputFieldConfig, type GraphQLInputFieldConfigMap,
} from 'graphql';
import type { ColumnInfo, TableInfo } from '../../metadata/index.js';
import type { SchemaContext } from './context.js';
import type { EnumMeta } from './fieldMeta.js';
import { boolExp } from './inputTypes.js';
import { quoted } from './names.js';
import { isJsonbType, isNumericType } from '../../core/index.js';
import { outField, tableObject } from './tableTypes.js';
import { insertView, updateView, type InsertView } from './mutationView.js';

/** Tags on mutation input fields, read by the mutation planner. */
export type MutationInputMeta =
  | { kind: 'ext:mut_column'; column: ColumnInfo }
  | { kind: 'ext:ins_object_rel'; rel: InsertView['relationships'][number]['rel']; remote: TableInfo }
  | { kind: 'ext:ins_array_rel'; rel: InsertView['relationships'][number]['rel']; remote: TableInfo };

const columnField = (ctx: SchemaContext, c: ColumnInfo): GraphQLInputFieldConfig => ({
  type: ctx.columnType(c),
  description: c.description ?? undefined,
  extensions: { svc: { kind: 'ext:mut_column', column: c } satisfies MutationInputMeta },
});

const columnFields = (ctx: SchemaContext, cols: ColumnInfo[], type?: (c: ColumnInfo) => GraphQLInputFieldConfig['type']): GraphQLInputFieldConfigMap =>
  Object.fromEntries(cols.map((c) => {
    const f = columnField(ctx, c);
    return [c.gqlName, type ? { ...f, type: type(c) } : f];
  }));

/** `<t>_insert_input`: insertable columns and insertable relationships. */
export function insertInput(ctx: SchemaContext, table: TableInfo): GraphQLInputObjectType {
  const name = `${table.gqlName}_insert_input`;
  return ctx.memo(name, () => new GraphQLInputObjectType({
    name,
    description: `input type for inserting data into table ${quoted(table.name)}`,
    fields: () => {
      const view = insertView(ctx.sc, ctx.role, table, ctx.backendOnly);
      if (!view) return {};
      const fields = columnFields(ctx, view.columns);
      for (const { rel, remote } of view.relationships) {
        const type = rel.type === 'object' ? objRelInsertInput(ctx, remote) : arrRelInsertInput(ctx, remote);
        const meta: MutationInputMeta = rel.type === 'object' ? { kind: 'ext:ins_object_rel', rel, remote } : { kind: 'ext:ins_array_rel', rel, remote };
        fields[rel.name] = { type, extensions: { svc: meta } };
      }
      return fields;
    },
  }));
}

function relInsertInput(ctx: SchemaContext, remote: TableInfo, kind: 'obj' | 'arr'): GraphQLInputObjectType {
  const name = `${remote.gqlName}_${kind}_rel_insert_input`;
  return ctx.memo(name, () => new GraphQLInputObjectType({
    name,
    description: `input type for inserting ${kind === 'obj' ? 'object' : 'array'} relation for remote table ${quoted(remote.name)}`,
    fields: () => {
      const data = insertInput(ctx, remote);
      const fields: GraphQLInputFieldConfigMap = {
        data: { type: new GraphQLNonNull(kind === 'obj' ? data : new GraphQLList(new GraphQLNonNull(data))) },
      };
      if (insertView(ctx.sc, ctx.role, remote, ctx.backendOnly)?.upsert) fields.on_conflict = { type: onConflictInput(ctx, remote) };
      return fields;
    },
  }));
}

export const objRelInsertInput = (ctx: SchemaContext, remote: TableInfo) => relInsertInput(ctx, remote, 'obj');
export const arrRelInsertInput = (ctx: SchemaContext, remote: TableInfo) => relInsertInput(ctx, remote, 'arr');

/** The deprecated `conflict_action` enum (shared by all tables). */
export function conflictActionEnum(ctx: SchemaContext): GraphQLEnumType {
  return ctx.memo('conflict_action', () => new GraphQLEnumType({
    name: 'conflict_action',
    description: 'conflict action',
    values: {
      ignore: { value: 'ignore', description: 'ignore the insert on this row' },
      update: { value: 'update', description: 'update the row with the given values' },
    },
  }));
}

/** `<t>_on_conflict { constraint, update_columns, where }` (+ deprecated `action`). */
export function onConflictInput(ctx: SchemaContext, table: TableInfo): GraphQLInputObjectType {
  const name = `${table.gqlName}_on_conflict`;
  return ctx.memo(name, () => new GraphQLInputObjectType({
    name,
    description: `on conflict condition type for table ${quoted(table.name)}`,
    fields: () => ({
      action: { type: conflictActionEnum(ctx), description: 'action when conflict occurs (deprecated)', deprecationReason: 'use update_columns' },
      constraint: { type: new GraphQLNonNull(constraintEnum(ctx, table)) },
      update_columns: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(updateColumnEnum(ctx, table)))), defaultValue: [] },
      where: { type: boolExp(ctx, table) },
    }),
  }));
}

/** `<t>_constraint`: unique and primary key constraints. */
export function constraintEnum(ctx: SchemaContext, table: TableInfo): GraphQLEnumType {
  const name = `${table.gqlName}_constraint`;
  return ctx.memo(name, () => new GraphQLEnumType({
    name,
    description: `unique or primary key constraints on table ${quoted(table.name)}`,
    extensions: { svc: { kind: 'constraint_enum' } satisfies EnumMeta },
    values: Object.fromEntries((insertView(ctx.sc, ctx.role, table, ctx.backendOnly)?.constraints ?? []).map((c) => [c, { value: c, description: 'unique or primary key constraint' }])),
  }));
}

/** `<t>_update_column`: the columns an upsert may update. */
export function updateColumnEnum(ctx: SchemaContext, table: TableInfo): GraphQLEnumType {
  const name = `${table.gqlName}_update_column`;
  return ctx.memo(name, () => new GraphQLEnumType({
    name,
    description: `update columns of table ${quoted(table.name)}`,
    extensions: { svc: { kind: 'column_enum', table } satisfies EnumMeta },
    values: Object.fromEntries((insertView(ctx.sc, ctx.role, table, ctx.backendOnly)?.upsert?.columns ?? []).map((c) => [c.gqlName, { value: c.name, description: 'column name' }])),
  }));
}

/** The update operator arguments of `update_<t>` / `update_<t>_by_pk`, present for the role's update columns. */
export function updateOperatorArgs(ctx: SchemaContext, table: TableInfo): Record<string, { type: GraphQLInputObjectType; description: string }> {
  const view = updateView(table, ctx.role, ctx.backendOnly);
  if (!view) return {};
  const args: Record<string, { type: GraphQLInputObjectType; description: string }> = {};
  const t = table.gqlName;
  const input = (suffix: string, description: string, cols: ColumnInfo[], type?: (c: ColumnInfo) => GraphQLInputFieldConfig['type']) =>
    ctx.memo(`${t}${suffix}`, () => new GraphQLInputObjectType({ name: `${t}${suffix}`, description, fields: () => columnFields(ctx, cols, type) }));
  args._set = {
    type: input('_set_input', `input type for updating data in table ${quoted(table.name)}`, view.columns),
    description: 'sets the columns of the filtered rows to the given values',
  };
  const numeric = view.columns.filter((c) => isNumericType(c.pgType));
  if (numeric.length) {
    args._inc = {
      type: input('_inc_input', `input type for incrementing integer column in table ${quoted(table.name)}`, numeric),
      description: 'increments the integer columns with given value of the filtered values',
    };
  }
  const jsonb = view.columns.filter((c) => isJsonbType(c.pgType));
  if (jsonb.length) {
    args._append = {
      type: input('_append_input', 'append existing jsonb value of filtered columns with new jsonb value', jsonb),
      description: 'append existing jsonb value of filtered columns with new jsonb value',
    };
    args._prepend = {
      type: input('_prepend_input', 'prepend existing jsonb value of filtered columns with new jsonb value', jsonb),
      description: 'prepend existing jsonb value of filtered columns with new jsonb value',
    };
    const delKey = 'delete key/value pair or string element. key/value pairs are matched based on their key value';
    args._delete_key = { type: input('_delete_key_input', delKey, jsonb, () => GraphQLString), description: delKey };
    const delElem = 'delete the array element with specified index (negative integers count from the end). throws an error if top level container is not an array';
    args._delete_elem = { type: input('_delete_elem_input', delElem, jsonb, () => GraphQLInt), description: delElem };
    const delPath = 'delete the field or element with specified path (for JSON arrays, negative integers count from the end)';
    args._delete_at_path = { type: input('_delete_at_path_input', delPath, jsonb, () => new GraphQLList(GraphQLString)), description: delPath };
  }
  return args;
}

/** `<t>_pk_columns_input`: every primary key column, required. */
export function pkColumnsInput(ctx: SchemaContext, table: TableInfo, pk: ColumnInfo[]): GraphQLInputObjectType {
  const name = `${table.gqlName}_pk_columns_input`;
  return ctx.memo(name, () => new GraphQLInputObjectType({
    name,
    description: `primary key columns input for table: ${quoted(table.name)}`,
    fields: () => columnFields(ctx, pk, (c) => new GraphQLNonNull(ctx.columnType(c))),
  }));
}

/** `<t>_mutation_response { affected_rows, returning }` (returning only with select permission). */
export function mutationResponse(ctx: SchemaContext, table: TableInfo): GraphQLObjectType {
  const name = `${table.gqlName}_mutation_response`;
  return ctx.memo(name, () => new GraphQLObjectType({
    name,
    description: `response of any mutation on the table ${quoted(table.name)}`,
    fields: () => {
      const fields: Record<string, ReturnType<typeof outField>> = {
        affected_rows: outField(new GraphQLNonNull(GraphQLInt), { kind: 'ext:affected_rows', table }, { description: 'number of affected rows by the mutation' }),
      };
      if (ctx.view(table)) {
        fields.returning = outField(new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(tableObject(ctx, table)))), { kind: 'ext:returning', table }, {
          description: 'data of the affected rows by the mutation',
        });
      }
      return fields;
    },
  }));
}

/** `<t>_updates` (Hasura v2's `update_<t>_many`): one update — its `where` and its operators. */
export function updatesInput(ctx: SchemaContext, table: TableInfo, ops: ReturnType<typeof updateOperatorArgs>): GraphQLInputObjectType {
  const name = `${table.gqlName}_updates`;
  return ctx.memo(name, () => new GraphQLInputObjectType({
    name,
    fields: () => ({
      ...ops,
      where: { type: new GraphQLNonNull(boolExp(ctx, table)), description: 'filter the rows which have to be updated' },
    }),
  }));
}
