/**
 * What a schema field means, attached to graphql-js fields and input fields as
 * `extensions.svc`. The request validator is schema-generic; the planner reads these tags to
 * turn a validated field into IR without re-deriving names. Later work (mutations, functions,
 * computed fields, actions...) adds its own `kind`s: the planner dispatches on `kind`.
 */
import type { GraphQLField, GraphQLInputField } from 'graphql';
import type { ColumnInfo, ComputedFieldInfo, FunctionInfo, RelationshipInfo, TableInfo } from '../../metadata/index.js';

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
