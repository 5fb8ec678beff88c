/**
 * Hasura v1.3's generated names and descriptions, in one place: type names (`author_bool_exp`,
 * `author_aggregate_fields`, `Int_comparison_exp`...), root field names (with custom root
 * fields), and the quoted table display used in descriptions (`"author"`, `"other.author"`).
 */
import { displayName, type QualifiedName } from '../../core/index.js';
import type { TableInfo } from '../../metadata/index.js';

export const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
export const isGraphqlName = (s: string): boolean => GRAPHQL_NAME.test(s) && !s.startsWith('__');

/** `"author"` / `"other.author"`: how Hasura quotes a table inside descriptions. */
/** `"author"`, `"schema.name"`; a logical model (empty schema) by its name. */
export const quoted = (q: QualifiedName): string => `"${q.schema === '' ? q.name : displayName(q)}"`;

/** Hasura's `mkDescriptionWith`: the Postgres comment (when any) above the generated text. */
export function describeWith(comment: string | null | undefined, generated: string): string {
  if (comment === null || comment === undefined) return generated;
  return `${comment}\n\n\n${generated}\n`;
}

export const typeNames = (t: TableInfo) => ({
  object: t.gqlName,
  aggregate: `${t.gqlName}_aggregate`,
  aggregateFields: `${t.gqlName}_aggregate_fields`,
  opFields: (op: string) => `${t.gqlName}_${op}_fields`,
  boolExp: `${t.gqlName}_bool_exp`,
  orderBy: `${t.gqlName}_order_by`,
  aggregateOrderBy: `${t.gqlName}_aggregate_order_by`,
  opOrderBy: (op: string) => `${t.gqlName}_${op}_order_by`,
  selectColumn: `${t.gqlName}_select_column`,
});

/** Query root field names, honouring `custom_root_fields`. */
export const rootFieldNames = (t: TableInfo) => ({
  select: t.customRootFields.select ?? t.gqlName,
  selectByPk: t.customRootFields.select_by_pk ?? `${t.gqlName}_by_pk`,
  selectAggregate: t.customRootFields.select_aggregate ?? `${t.gqlName}_aggregate`,
});

export const comparisonExpName = (scalarName: string): string => `${scalarName}_comparison_exp`;
export const enumTypeName = (enumTableGqlName: string): string => `${enumTableGqlName}_enum`;
export const functionArgsTypeName = (fnGqlName: string): string => `${fnGqlName}_args`;
