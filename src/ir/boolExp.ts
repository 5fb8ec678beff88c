/**
 * Boolean expressions after parsing: what a `where` argument, a permission `filter`/`check`, or a
 * v1 DML `where` means, with names resolved to database columns. Permission filters are parsed once
 * at schema-build time (session variables stay as references) and AND-ed in by the planner.
 */
import type { QualifiedTable } from '../core/index.js';
import type { IrValue } from './value.js';

export type ComparisonOp =
  | '_eq' | '_neq' | '_gt' | '_lt' | '_gte' | '_lte'
  | '_in' | '_nin'
  | '_like' | '_nlike' | '_ilike' | '_nilike' | '_similar' | '_nsimilar'
  | '_contains' | '_contained_in' | '_has_key' | '_has_keys_any' | '_has_keys_all';

/** Column-to-column comparisons of permission filters (`_ceq: "other_col"`, or `["$", "col"]` for the root table in v1.3). */
export type ColumnComparisonOp = '_ceq' | '_cne' | '_cgt' | '_clt' | '_cge' | '_cle';

/** A column of the table the expression is evaluated against, or a scalar computed field of it. */
export interface ColumnRef {
  column: string;
  pgType: string;
  /** Inherited roles: the column reads as null in rows where this does not hold (see SelectPermInfo.columnConditions). */
  visibleIf?: BoolExp;
  /** Set for a computed field (Hasura v2 permissions): the value is `fn(row [, session])`, not a column. */
  computed?: RowFunctionCall;
}

/** A function of the row (a computed field without input arguments): `fn(row [, session json])`. */
export interface RowFunctionCall {
  function: QualifiedTable;
  /** Positions of the row and the session arguments. */
  tableArg: number;
  sessionArg?: number;
}

export type BoolExp =
  | { kind: 'and'; items: BoolExp[] }
  | { kind: 'or'; items: BoolExp[] }
  | { kind: 'not'; item: BoolExp }
  | { kind: 'true' }
  /** `column op value`. `_in`/`_nin` take an array-typed value (pgType `_int4` style, or `int4[]`). */
  | { kind: 'compare'; column: ColumnRef; op: ComparisonOp; value: IrValue }
  | { kind: 'is_null'; column: ColumnRef; isNull: IrValue | boolean }
  | { kind: 'compare_column'; column: ColumnRef; op: ColumnComparisonOp; other: ColumnRef; otherIsRoot?: boolean }
  /** Traverses a relationship: true when some related row satisfies `where` (EXISTS). */
  | { kind: 'exists_rel'; rel: RelationshipJoin; where: BoolExp }
  /** A SETOF-table computed field: true when some row it returns satisfies `where` (EXISTS). */
  | { kind: 'exists_fn'; call: RowFunctionCall; where: BoolExp };

/** How to reach a related table: `remote.<remote> = local.<local>` for each pair. */
export interface RelationshipJoin {
  remoteTable: QualifiedTable;
  mapping: ReadonlyArray<{ local: string; remote: string }>;
  /**
   * Inherited roles: the rows where the role sees every local (`local`) or remote (`remote`) join
   * column; elsewhere a join column reads as null and so matches nothing (planner/context.ts).
   */
  visibleIf?: { local?: BoolExp; remote?: BoolExp };
}

export const TRUE: BoolExp = { kind: 'true' };

/** AND of expressions, dropping `true`s. */
export function andAll(items: ReadonlyArray<BoolExp | undefined>): BoolExp {
  const kept = items.filter((x): x is BoolExp => !!x && x.kind !== 'true');
  if (kept.length === 0) return TRUE;
  if (kept.length === 1) return kept[0];
  return { kind: 'and', items: kept };
}
