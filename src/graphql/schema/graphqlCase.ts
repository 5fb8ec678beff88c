/**
 * A role schema under Hasura v2's `graphql-default` naming convention, made once per schema build
 * from the `hasura-default` one (roleSchema.ts), for the sources that follow it (each source its own
 * convention, else the server's): the names generated from their databases change case, what the user
 * named does not, and a `hasura-default` source's names stay as they are.
 *
 * - types: PascalCase (`author_bool_exp` → `AuthorBoolExp`, `order_by` → `OrderBy`), named so when made
 *   (SchemaContext.memo); scalars, the root types, remote schemas' types and actions' custom types keep their names;
 * - fields and arguments: camelCase (`author_by_pk` → `authorByPk`, `distinct_on` → `distinctOn`,
 *   `affected_rows` → `affectedRows`, `_is_null` → `_isNull`); a custom root field name, a custom
 *   column name, relationship and computed field names are kept (`<rel>_aggregate` → `<rel>Aggregate`);
 *   remote and action root fields keep theirs;
 * - enum values: upper case (`asc` → `ASC`, an enum table's `sunday` → `SUNDAY`); the values of
 *   `<t>_select_column` / `<t>_update_column` are the columns' field names, constraint names are kept.
 *
 * Every renamed argument and input field carries its `hasura-default` name as `extensions.svcName`,
 * which the request validator keys arguments and input objects by: the planner reads one set of
 * names whatever the convention. Enum values keep their internal values.
 */
import {
  GraphQLEnumType, GraphQLInputObjectType, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLScalarType,
  GraphQLSchema, GraphQLUnionType,
  type GraphQLArgumentConfig, type GraphQLFieldConfig, type GraphQLInputFieldConfig, type GraphQLNamedType, type GraphQLType,
} from 'graphql';
import type { ColumnInfo, SchemaCache, TableInfo } from '../../metadata/index.js';
import type { EnumMeta, InputFieldMeta, OutputFieldMeta, SvcExtensions } from './fieldMeta.js';
import { customThenCamel, snakeToCamel, upperEnumValue } from './namingCase.js';
import { rootFieldNames } from './names.js';

const ROOT_TYPES = new Set(['query_root', 'mutation_root', 'subscription_root']);

/** A root type, or a source's namespace type (`<namespace>_query`...: named as the source customization says, its fields root fields). */
const isRootLike = (t: GraphQLNamedType): boolean =>
  ROOT_TYPES.has(t.name) || (t.extensions as { svc?: { kind?: unknown } } | null | undefined)?.svc?.kind === 'source_namespace';

/** A column's field name: the custom column name as given, else the column name in camelCase. */
const columnName = (c: ColumnInfo): string => (c.gqlName !== c.name ? c.gqlName : snakeToCamel(c.name));

function outputName(name: string, meta: OutputFieldMeta | undefined, isRoot: boolean): string {
  const kind = meta?.kind;
  if (kind === undefined) return snakeToCamel(name);
  if (kind.startsWith('ext:remote') || kind.startsWith('ext:action') || kind === 'source_namespace') return name;
  const m = meta as Record<string, any>;
  switch (kind) {
    case 'column': case 'agg_op_column': return columnName(m.column);
    case 'object_rel': case 'array_rel': case 'native_query_rel': case 'computed_scalar': case 'computed_table': return name;
    case 'array_rel_aggregate': case 'ext:relay_rel_connection': return customThenCamel(m.rel.name, name.slice(m.rel.name.length));
    case 'ext:relay_connection': {
      const select = rootFieldNames(m.table).select;
      return m.table.customRootFields.select ? customThenCamel(select, name.slice(select.length)) : snakeToCamel(name);
    }
  }
  if (isRoot && m.table && Object.values((m.table as TableInfo).customRootFields).includes(name)) return name;
  return snakeToCamel(name);
}

function inputName(name: string, meta: InputFieldMeta | undefined): string {
  const m = meta as Record<string, any> | undefined;
  switch (m?.kind) {
    case 'bool_column': case 'order_column': case 'order_agg_op_column': case 'ext:mut_column': return columnName(m.column);
    case 'bool_rel': case 'order_object_rel': case 'ext:ins_object_rel': case 'ext:ins_array_rel': return name;
    case 'order_array_agg': return customThenCamel(m.rel.name, name.slice(m.rel.name.length));
  }
  return snakeToCamel(name);
}

/** An argument's new name: a primary key column of a `_by_pk` field by the column rule, others camelCase. */
function argName(name: string, meta: OutputFieldMeta | undefined): string {
  const table = (meta as { table?: TableInfo } | undefined)?.table;
  const column = table?.columns.find((c) => c.gqlName === name);
  return column ? columnName(column) : snakeToCamel(name);
}

const withName = <T extends { extensions?: unknown }>(config: T, from: string, to: string): T =>
  from === to ? config : { ...config, extensions: { ...(config.extensions as object | undefined), svcName: from } };

/**
 * A root field's name under `graphql-default` (roleSchema.ts names the root fields of a source under that
 * convention before its `root_fields` prefix and suffix join them).
 */
export const rootFieldName = (name: string, config: GraphQLFieldConfig<unknown, unknown>): string =>
  outputName(name, (config.extensions as SvcExtensions<OutputFieldMeta> | undefined)?.svc, true);

/** Whether any source (`default` included) follows `graphql-default`: the schema is then renamed (`toGraphqlCase`). */
export function anyGraphqlCase(cache: SchemaCache): boolean {
  if (cache.namingConvention === 'graphql-default') return true;
  for (const sc of cache.sources?.values() ?? []) if (sc.namingConvention === 'graphql-default') return true;
  return false;
}

/**
 * The schema with the fields, arguments and enum values of the types made over a `graphql-default` source
 * (`owned`: named already by SchemaContext.memo) renamed, and the arguments of that source's root fields
 * (named already by roleSchema.ts); every other type keeps its names (a `hasura-default` source's, remote
 * schemas', actions').
 */
export function toGraphqlCase(schema: GraphQLSchema, cache: SchemaCache, owned: ReadonlySet<string>): GraphQLSchema {
  const sourceCase = (source: string | undefined): boolean =>
    (source === undefined ? cache : cache.sources?.get(source))?.namingConvention === 'graphql-default';
  const made = new Map<string, GraphQLNamedType>();
  const named = <T extends GraphQLNamedType>(t: T): T => (made.get(t.name) as T | undefined) ?? t;
  const wrap = <T extends GraphQLType>(t: T): T => {
    if (t instanceof GraphQLNonNull) return new GraphQLNonNull(wrap(t.ofType)) as T;
    if (t instanceof GraphQLList) return new GraphQLList(wrap(t.ofType)) as T;
    return named(t as GraphQLNamedType) as T;
  };
  const fieldsOf = (t: GraphQLObjectType | GraphQLInterfaceType, keep: boolean) => () => {
    const isRoot = isRootLike(t);
    const out: Record<string, GraphQLFieldConfig<unknown, unknown>> = {};
    for (const [name, f] of Object.entries(t.toConfig().fields)) {
      const meta = (f.extensions as SvcExtensions<OutputFieldMeta> | undefined)?.svc;
      const foreignField = (meta?.kind.startsWith('ext:remote') ?? false) || (meta?.kind.startsWith('ext:action') ?? false);
      // A root field's arguments follow its source's convention.
      const keepArgs = foreignField || (isRoot ? !sourceCase((meta as { table?: TableInfo } | undefined)?.table?.source) : keep);
      const args: Record<string, GraphQLArgumentConfig> = {};
      for (const [a, config] of Object.entries(f.args ?? {})) {
        const to = keepArgs ? a : argName(a, meta);
        args[to] = withName({ ...config, type: wrap(config.type) }, a, to);
      }
      out[keep || isRoot ? name : outputName(name, meta, false)] = { ...f, type: wrap(f.type), args };
    }
    return out;
  };
  for (const t of Object.values(schema.getTypeMap())) {
    if (t.name.startsWith('__') || t instanceof GraphQLScalarType) continue;
    const keep = !owned.has(t.name);
    const name = t.name;
    if (t instanceof GraphQLObjectType) {
      made.set(t.name, new GraphQLObjectType({ ...t.toConfig(), name, interfaces: () => t.getInterfaces().map(named), fields: fieldsOf(t, keep) }));
    } else if (t instanceof GraphQLInterfaceType) {
      made.set(t.name, new GraphQLInterfaceType({ ...t.toConfig(), name, interfaces: () => t.getInterfaces().map(named), fields: fieldsOf(t, keep) }));
    } else if (t instanceof GraphQLUnionType) {
      made.set(t.name, new GraphQLUnionType({ ...t.toConfig(), name, types: () => t.getTypes().map(named) }));
    } else if (t instanceof GraphQLInputObjectType) {
      made.set(t.name, new GraphQLInputObjectType({
        ...t.toConfig(),
        name,
        fields: () => {
          const out: Record<string, GraphQLInputFieldConfig> = {};
          for (const [n, f] of Object.entries(t.toConfig().fields)) {
            const to = keep ? n : inputName(n, (f.extensions as SvcExtensions<InputFieldMeta> | undefined)?.svc);
            out[to] = withName({ ...f, type: wrap(f.type) }, n, to);
          }
          return out;
        },
      }));
    } else if (t instanceof GraphQLEnumType) {
      made.set(t.name, keep ? t : renameEnum(t, name));
    }
  }
  return new GraphQLSchema({
    query: named(schema.getQueryType()!),
    mutation: schema.getMutationType() ? named(schema.getMutationType()!) : null,
    subscription: schema.getSubscriptionType() ? named(schema.getSubscriptionType()!) : null,
    types: [...made.values()],
    directives: schema.getDirectives(),
    assumeValid: true,
  });
}

function renameEnum(t: GraphQLEnumType, name: string): GraphQLEnumType {
  const meta = (t.extensions as SvcExtensions<EnumMeta> | undefined)?.svc;
  const config = t.toConfig();
  const values = Object.fromEntries(Object.entries(config.values).map(([v, c]) => {
    if (meta?.kind === 'constraint_enum') return [v, c];
    if (meta?.kind === 'column_enum') {
      const column = meta.table.columnsByName.get(String(c.value));
      return [column ? columnName(column) : snakeToCamel(v), c];
    }
    return [upperEnumValue(v), c];
  }));
  return new GraphQLEnumType({ ...config, name, values });
}
