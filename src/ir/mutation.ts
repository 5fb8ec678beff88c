/**
 * The mutation IR: what one mutation root field (GraphQL `insert_<t>`, `update_<t>_by_pk`...) or
 * one v1 DML operation (`insert`, `update`, `delete`) does to one table, with permissions already
 * applied by the planner:
 *
 * - insert: the role's `set` presets are part of each row, its `check` (and, for upserts that
 *   update, the update permission's `check`) is `check`/`updateCheck`, and the conflict clause's
 *   `where` already holds the update permission's filter;
 * - update: `where` is the client's `where` AND the update filter, `check` the update check, the
 *   update presets are `set` operations;
 * - delete: `where` is the client's `where` AND the delete filter.
 *
 * `output` says what JSON the field returns; returning rows are `SelectField`s evaluated over the
 * mutated rows (relationships inside them carry the related tables' select filters).
 */
import type { QualifiedTable } from '../core/index.js';
import type { BoolExp, RelationshipJoin } from './boolExp.js';
import type { SelectField } from './select.js';
import type { IrValue } from './value.js';

/** A column and the value written to it (cast to `value.pgType`). */
export interface ColumnValue {
  column: string;
  value: IrValue;
}

export interface InsertIR {
  kind: 'insert';
  table: QualifiedTable;
  /** The rows, in order. A column absent from a row gets its default. */
  rows: InsertRowIR[];
  /** What a violated `check` reports: the insert check, then (upserts) the update check. */
  check: BoolExp;
  /** For ON CONFLICT DO UPDATE: the check rows changed by the update must pass (else `check`). */
  updateCheck?: BoolExp;
  onConflict?: OnConflictIR;
  output: MutationOutputIR;
}

/** One row to insert: its own column values (presets included) and nested inserts. */
export interface InsertRowIR {
  columns: ColumnValue[];
  /** Parents inserted first; their `remote` column values fill this row's `local` columns. */
  objectRelationships: NestedInsertIR[];
  /** Children inserted after this row; this row's `local` values fill their `remote` columns. */
  arrayRelationships: NestedInsertIR[];
}

export interface NestedInsertIR {
  /** Relationship name (for error messages and paths). */
  name: string;
  join: RelationshipJoin;
  /** The nested insert (its `output` is unused). */
  insert: InsertIR;
}

export type ConflictTarget = { kind: 'constraint'; name: string } | { kind: 'columns'; columns: string[] };

export type OnConflictIR =
  /** ON CONFLICT [target] DO NOTHING. */
  | { action: 'nothing'; target?: ConflictTarget }
  /** ON CONFLICT target DO UPDATE SET col = EXCLUDED.col, preset = value WHERE where. */
  | { action: 'update'; target: ConflictTarget; columns: string[]; presets: ColumnValue[]; where: BoolExp };

/** How one column is changed by an update. */
export type UpdateOp =
  | { kind: 'set'; value: IrValue }
  | { kind: 'inc'; value: IrValue }
  | { kind: 'mul'; value: IrValue }
  | { kind: 'default' }
  | { kind: 'append'; value: IrValue }
  | { kind: 'prepend'; value: IrValue }
  | { kind: 'delete_key'; value: IrValue }
  | { kind: 'delete_elem'; value: IrValue }
  | { kind: 'delete_at_path'; value: IrValue };

export interface UpdateIR {
  kind: 'update';
  table: QualifiedTable;
  where: BoolExp;
  /** Column changes in the order they were given (at most one per column). */
  set: Array<{ column: string; op: UpdateOp }>;
  /** The update permission's `check` on the new row values, when there is one. */
  check?: BoolExp;
  output: MutationOutputIR;
}

export interface DeleteIR {
  kind: 'delete';
  table: QualifiedTable;
  where: BoolExp;
  output: MutationOutputIR;
}

export type MutationIR = InsertIR | UpdateIR | DeleteIR;

/** A field of `<t>_mutation_response` (or of the v1 DML answer). */
export type MutationResponseField =
  | { alias: string; kind: 'affected_rows' }
  | { alias: string; kind: 'returning'; fields: SelectField[] }
  | { alias: string; kind: 'typename'; name: string };

export type MutationOutputIR =
  /** `{affected_rows, returning}`-style object. */
  | { kind: 'response'; fields: MutationResponseField[] }
  /** `insert_<t>_one`, `update_<t>_by_pk`, `delete_<t>_by_pk`: the (first) row's object, or null. */
  | { kind: 'single'; fields: SelectField[] };

/** The message a failed permission check reports (after "Check constraint violation. "). */
export const INSERT_CHECK_MESSAGE = 'insert/update check constraint failed';
export const UPDATE_CHECK_MESSAGE = 'update check constraint failed';
