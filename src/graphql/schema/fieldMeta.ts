/**
 * What a schema field means, attached to graphql-js fields and input fields as
 * `extensions.svc`. The request validator is schema-generic; the planner reads these tags to
 * turn a validated field into IR without re-deriving names. Later work (mutations, functions,
 * computed fields, actions...) adds its own `kind`s: the planner dispatches on `kind`.
 */
import type { GraphQLField, GraphQLInputField, GraphQLInputObjectType } from 'graphql';
import type { ColumnInfo, ComputedFieldInfo, FunctionInfo, NativeQueryInfo, NativeQueryRelInfo, RelationshipInfo, TableInfo } from '../../metadata/index.js';

export type AggregateOpName =
  | 'sum' | 'avg' | 'stddev' | 'stddev_samp' | 'stddev_pop' | 'variance' | 'var_samp' | 'var_pop'
  | 'max' | 'min';

export const NUMERIC_AGG_OPS: readonly AggregateOpName[] = ['sum', 'avg', 'stddev', 'stddev_samp', 'stddev_pop', 'variance', 'var_samp', 'var_pop'];
export const COMPARABLE_AGG_OPS: readonly AggregateOpName[] = ['max', 'min'];

/** Tags on output fields. */
export type OutputFieldMeta =
  | { kind: 'select'; table: TableInfo }
  | { kind: 'select_by_pk'; table: TableInfo; pkColumns: ColumnInfo[] }
  | { kind: 'select_aggregate'; table: TableInfo }
  | { kind: 'function'; fn: FunctionInfo; table: TableInfo }
  | { kind: 'function_aggregate'; fn: FunctionInfo; table: TableInfo }
  /** A native query's root field; `table` is its logical model. */
  | { kind: 'native_query'; nq: NativeQueryInfo; table: TableInfo }
  /**
   * A relationship of a native query (`table` is its logical model): to the tracked table `remote`,
   * or to the native query `target` (`remote` is then the target's logical model).
   */
  | { kind: 'native_query_rel'; table: TableInfo; rel: NativeQueryRelInfo; remote: TableInfo; target?: NativeQueryInfo }
  | { kind: 'column'; table: TableInfo; column: ColumnInfo }
  | { kind: 'object_rel'; table: TableInfo; rel: RelationshipInfo; remote: TableInfo }
  | { kind: 'array_rel'; table: TableInfo; rel: RelationshipInfo; remote: TableInfo }
  | { kind: 'array_rel_aggregate'; table: TableInfo; rel: RelationshipInfo; remote: TableInfo }
  | { kind: 'computed_scalar'; table: TableInfo; field: ComputedFieldInfo; pgType: string }
  | { kind: 'computed_table'; table: TableInfo; field: ComputedFieldInfo; remote: TableInfo }
  /** `aggregate` / `nodes` of `<t>_aggregate`. */
  | { kind: 'agg_aggregate'; table: TableInfo }
  | { kind: 'agg_nodes'; table: TableInfo }
  /** Fields of `<t>_aggregate_fields`. */
  | { kind: 'agg_count'; table: TableInfo }
  | { kind: 'agg_op'; table: TableInfo; op: AggregateOpName }
  /** Fields of `<t>_<op>_fields`. */
  | { kind: 'agg_op_column'; table: TableInfo; op: AggregateOpName; column: ColumnInfo }
  /** A source's root-field namespace (namespaceFields.ts): the root fields chosen under it are planned as root fields. */
  | { kind: 'source_namespace'; source?: string }
  /** Kinds planned by a planner of `RootFieldPlanners` (mutations, actions, remote fields...). */
  | { kind: `ext:${string}`; [key: string]: unknown };

/** Tags on input fields of `<t>_bool_exp`, `<t>_order_by`, `<t>_aggregate_order_by`... */
export type InputFieldMeta =
  | { kind: 'bool_and' } | { kind: 'bool_or' } | { kind: 'bool_not' }
  | { kind: 'bool_column'; column: ColumnInfo }
  | { kind: 'bool_rel'; rel: RelationshipInfo; remote: TableInfo }
  | { kind: 'order_column'; column: ColumnInfo }
  | { kind: 'order_object_rel'; rel: RelationshipInfo; remote: TableInfo }
  | { kind: 'order_array_agg'; rel: RelationshipInfo; remote: TableInfo }
  | { kind: 'order_agg_count' }
  | { kind: 'order_agg_op'; op: AggregateOpName }
  | { kind: 'order_agg_op_column'; column: ColumnInfo }
  | { kind: `ext:${string}`; [key: string]: unknown };

/** Tags on enum types whose values are not generated words: columns (values are column names), constraints. */
export type EnumMeta = { kind: 'column_enum'; table: TableInfo } | { kind: 'constraint_enum' };

export interface SvcExtensions<M> {
  svc?: M;
}

/** The tag of an output field, or undefined for built-ins (`__typename`, introspection). */
export function outputMeta(field: GraphQLField<unknown, unknown>): OutputFieldMeta | undefined {
  return (field.extensions as SvcExtensions<OutputFieldMeta> | undefined)?.svc;
}

export function inputMeta(field: GraphQLInputField): InputFieldMeta | undefined {
  return (field.extensions as SvcExtensions<InputFieldMeta> | undefined)?.svc;
}

/**
 * The `hasura-default` name of an argument or input field: its own name, or the one a
 * `graphql-default` schema keeps in `extensions.svcName` (graphqlCase.ts). Arguments and input
 * objects are keyed by it, so planners read one set of names whatever the naming convention.
 */
export function canonicalName(x: { name: string; extensions?: unknown }): string {
  return (x.extensions as { svcName?: string } | undefined)?.svcName ?? x.name;
}

const byCanonical = new WeakMap<GraphQLInputObjectType, Map<string, GraphQLInputField>>();

/**
 * The input field of `type` whose `hasura-default` name is `name` (the keys of a validated input
 * object). A direct hit under `hasura-default`; a `graphql-default` type is indexed once.
 */
export function inputField(type: GraphQLInputObjectType, name: string): GraphQLInputField {
  const fields = type.getFields();
  const direct = fields[name];
  if (direct && canonicalName(direct) === name) return direct;
  let index = byCanonical.get(type);
  if (!index) byCanonical.set(type, (index = new Map(Object.values(fields).map((f) => [canonicalName(f), f]))));
  return index.get(name)!;
}
