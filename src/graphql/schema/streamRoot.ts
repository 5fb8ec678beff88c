/**
 * Streaming subscriptions (Hasura v2): per table the role may select, `subscription_root` gets
 *
 *   <t>_stream(batch_size: Int!, cursor: [<t>_stream_cursor_input]!, where: <t>_bool_exp): [<t>!]!
 *   input <t>_stream_cursor_input { initial_value: <t>_stream_cursor_value_input!, ordering: cursor_ordering }
 *   input <t>_stream_cursor_value_input { <each column the role may select>: <its type> }
 *   enum cursor_ordering { ASC DESC }
 *
 * tagged `ext:stream` (planner/stream.ts plans it; subscriptions/streams.ts runs it).
 */
import { GraphQLEnumType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, type GraphQLInputFieldConfigMap } from 'graphql';
import type { ColumnInfo, TableInfo } from '../../metadata/index.js';
import type { FieldEntry, SchemaContext } from './context.js';
import { isGraphqlName, quoted, rootFieldNames } from './names.js';
import { outField, selectArgs, tableObject } from './tableTypes.js';

/** The tag of a `<t>_stream` field. */
export interface StreamFieldMeta {
  kind: 'ext:stream';
  table: TableInfo;
  [key: string]: unknown;
}

/** The tag of a field of `<t>_stream_cursor_value_input`. */
export interface StreamCursorColumnMeta {
  kind: 'ext:stream_cursor_column';
  column: ColumnInfo;
  [key: string]: unknown;
}

function cursorOrdering(ctx: SchemaContext): GraphQLEnumType {
  return ctx.memo('cursor_ordering', () => new GraphQLEnumType({
    name: 'cursor_ordering',
    description: 'ordering argument of a cursor',
    values: { ASC: { value: 'ASC', description: 'ascending ordering of the cursor' }, DESC: { value: 'DESC', description: 'descending ordering of the cursor' } },
  }));
}

function cursorInput(ctx: SchemaContext, table: TableInfo, columns: ColumnInfo[]): GraphQLInputObjectType {
  const valueName = `${table.gqlName}_stream_cursor_value_input`;
  const value = ctx.memo(valueName, () => new GraphQLInputObjectType({
    name: valueName,
    description: 'Initial value of the column from where the streaming should start',
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const c of columns) {
        if (!isGraphqlName(c.gqlName)) continue;
        const meta: StreamCursorColumnMeta = { kind: 'ext:stream_cursor_column', column: c };
        fields[c.gqlName] = { type: ctx.columnType(c), description: c.description ?? undefined, extensions: { svc: meta } };
      }
      return fields;
    },
  }));
  const name = `${table.gqlName}_stream_cursor_input`;
  return ctx.memo(name, () => new GraphQLInputObjectType({
    name,
    description: `Streaming cursor of the table "${table.gqlName}"`,
    fields: {
      initial_value: { type: new GraphQLNonNull(value), description: 'Stream column input with initial value' },
      ordering: { type: cursorOrdering(ctx), description: 'cursor ordering' },
    },
  }));
}

/** `<t>_stream` for every table the role may select. */
export function streamRootFields(ctx: SchemaContext): FieldEntry[] {
  const entries: FieldEntry[] = [];
  for (const table of ctx.sc.tables.values()) {
    if (!isGraphqlName(table.gqlName)) continue;
    const view = ctx.view(table);
    if (!view || view.columns.length === 0) continue;
    const meta: StreamFieldMeta = { kind: 'ext:stream', table };
    entries.push([`${rootFieldNames(table).select}_stream`, outField(new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(tableObject(ctx, table)))), meta, {
      description: `fetch data from the table in a streaming manner: ${quoted(table.name)}`,
      args: {
        batch_size: { type: new GraphQLNonNull(GraphQLInt), description: 'maximum number of rows returned in a single batch' },
        cursor: { type: new GraphQLNonNull(new GraphQLList(cursorInput(ctx, table, view.columns))), description: 'cursor to stream the results returned by the query' },
        where: selectArgs(ctx, table).where!,
      },
    })]);
  }
  return entries;
}
