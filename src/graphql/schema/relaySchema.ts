/**
 * The Relay schema of a role (served at /v1beta1/relay), as Hasura v1.3 builds it: `query_root`
 * holds `node(id: ID!): Node` and one `<t>_connection` per table whose primary key the role sees;
 * those tables' object types implement `Node` (`id: ID!`, the global id, in place of a column
 * named `id`) and their array relationships get a `<rel>_connection` next to the plain list.
 * Remote schemas and remote relationships are not part of it; mutations are the tables' own.
 *
 * Tags: `ext:relay_node`, `ext:relay_connection` (root), `ext:relay_id`, `ext:relay_rel_connection`
 * (table fields), `ext:relay_edges` / `ext:relay_page_info` (connection), `ext:relay_cursor` /
 * `ext:relay_edge_node` (edge), `ext:relay_page` (pageInfo fields, `field` names which).
 */
import {
  GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString,
  type GraphQLFieldConfigArgumentMap, type GraphQLOutputType,
} from 'graphql';
import type { TableInfo } from '../../metadata/index.js';
import type { FieldEntry, SchemaContext, SchemaParts } from './context.js';
import { boolExp, orderBy } from './inputTypes.js';
import { mutationRootFields } from './mutationRoot.js';
import { isGraphqlName, quoted, rootFieldNames } from './names.js';
import { primaryKeyColumns } from './queryRoot.js';
import { outField, tableObject } from './tableTypes.js';

const nonNull = <T extends GraphQLObjectType | GraphQLInterfaceType>(t: T) => new GraphQLNonNull(t);

/**
 * The role's primary-key columns of `table` when it may select them all, else null (no Node, no
 * connection). An inherited role that sees a key column only in some rows gets null too: a global
 * id (and a connection's cursor) would carry the hidden values.
 */
export function relayKey(ctx: SchemaContext, table: TableInfo) {
  const view = ctx.view(table);
  const key = view ? primaryKeyColumns(table.primaryKey, table.columnsByName, view.columns) : null;
  const partial = table.permissions.get(ctx.role)?.select?.columnConditions;
  return key && partial && key.some((c) => partial.has(c.name)) ? null : key;
}

function nodeInterface(ctx: SchemaContext): GraphQLInterfaceType {
  return ctx.memo('Node', () => new GraphQLInterfaceType({
    name: 'Node',
    description: 'An object with globally unique ID',
    fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'A globally unique identifier' } },
  }));
}

function pageInfo(ctx: SchemaContext): GraphQLObjectType {
  const page = (field: string, type: GraphQLOutputType) => outField(type, { kind: 'ext:relay_page', field });
  return ctx.memo('PageInfo', () => new GraphQLObjectType({
    name: 'PageInfo',
    fields: {
      endCursor: page('endCursor', GraphQLString),
      hasNextPage: page('hasNextPage', new GraphQLNonNull(GraphQLBoolean)),
      hasPreviousPage: page('hasPreviousPage', new GraphQLNonNull(GraphQLBoolean)),
      startCursor: page('startCursor', GraphQLString),
    },
  }));
}

function connectionObject(ctx: SchemaContext, table: TableInfo): GraphQLObjectType {
  const name = `${table.gqlName}Connection`;
  return ctx.memo(name, () => {
    const edge = new GraphQLObjectType({
      name: ctx.typeName(`${table.gqlName}Edge`),
      fields: () => ({
        cursor: outField(new GraphQLNonNull(GraphQLString), { kind: 'ext:relay_cursor', table }),
        node: outField(nonNull(tableObject(ctx, table)), { kind: 'ext:relay_edge_node', table }),
      }),
    });
    return new GraphQLObjectType({
      name,
      description: `A Relay connection object on ${quoted(table.name)}`,
      fields: () => ({
        edges: outField(new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(edge))), { kind: 'ext:relay_edges', table }),
        pageInfo: outField(new GraphQLNonNull(pageInfo(ctx)), { kind: 'ext:relay_page_info', table }),
      }),
    });
  });
}

/** `after`, `before`, `first`, `last`, `order_by`, `where`. */
function connectionArgs(ctx: SchemaContext, table: TableInfo): GraphQLFieldConfigArgumentMap {
  return {
    after: { type: GraphQLString },
    before: { type: GraphQLString },
    first: { type: GraphQLInt },
    last: { type: GraphQLInt },
    order_by: { type: new GraphQLList(new GraphQLNonNull(orderBy(ctx, table))), description: 'sort the rows by one or more columns' },
    where: { type: boolExp(ctx, table), description: 'filter the rows returned' },
  };
}

/** `node(id:)` and `<t>_connection` for every table whose key the role sees. */
export function relayRootFields(ctx: SchemaContext): FieldEntry[] {
  const entries: FieldEntry[] = [];
  for (const table of ctx.sc.tables.values()) {
    if (!isGraphqlName(table.gqlName) || !relayKey(ctx, table)) continue;
    entries.push([`${rootFieldNames(table).select}_connection`, outField(new GraphQLNonNull(connectionObject(ctx, table)), { kind: 'ext:relay_connection', table }, {
      description: `fetch data from the table: ${quoted(table.name)}`,
      args: connectionArgs(ctx, table),
    })]);
  }
  if (entries.length > 0) {
    entries.push(['node', outField(nodeInterface(ctx), { kind: 'ext:relay_node' }, {
      description: 'fetch object by its globally unique ID',
      args: { id: { type: new GraphQLNonNull(GraphQLID), description: 'A globally unique id' } },
    })]);
  }
  return entries;
}

/** `id` (the global id) and `<rel>_connection` per array relationship to a table with a visible key. */
function relayTableFields(ctx: SchemaContext, table: TableInfo): FieldEntry[] {
  const out: FieldEntry[] = [];
  const key = relayKey(ctx, table);
  if (key) out.push(['id', outField(new GraphQLNonNull(GraphQLID), { kind: 'ext:relay_id', table, pkColumns: key }, { description: 'A globally unique identifier' })]);
  for (const { rel, remote } of ctx.view(table)?.relationships ?? []) {
    if (rel.type !== 'array' || !isGraphqlName(rel.name) || !relayKey(ctx, remote)) continue;
    out.push([`${rel.name}_connection`, outField(new GraphQLNonNull(connectionObject(ctx, remote)), { kind: 'ext:relay_rel_connection', table, rel, remote }, {
      description: rel.comment ?? 'An array relationship connection',
      args: connectionArgs(ctx, remote),
    })]);
  }
  return out;
}

export const RELAY_SCHEMA_PARTS: SchemaParts = {
  query: [relayRootFields],
  mutation: [mutationRootFields],
  tableFields: [relayTableFields],
  tableInterfaces: (ctx, table) => (relayKey(ctx, table) ? [nodeInterface(ctx)] : []),
};
