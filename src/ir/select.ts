/**
 * The select IR: what one query root field (or one nested relationship) asks of one table, with
 * permissions already applied (row filter AND-ed into `where`, limit capped, columns checked).
 * The SQL compiler turns it into one statement that builds the JSON inside Postgres.
 *
 * Output keys are the GraphQL aliases, in the order the client asked for them.
 */
import type { QualifiedTable } from '../core/index.js';
import type { BoolExp, RelationshipJoin } from './boolExp.js';
import type { IrValue } from './value.js';

export interface SelectIR {
  table: QualifiedTable;
  fields: SelectField[];
  where: BoolExp;
  orderBy?: OrderByItem[];
  /** LIMIT: `number` is written as a literal; an IrValue becomes a parameter. */
  limit?: number | IrValue;
  offset?: number | IrValue;
  /** DISTINCT ON these columns (the compiler puts them first in ORDER BY as Postgres requires). */
  distinctOn?: string[];
  /** Inherited roles: DISTINCT ON columns visible only where their condition holds (null elsewhere). */
  distinctOnVisibleIf?: Record<string, BoolExp>;
  /** Rows come from a set-returning function instead of `table` (root function fields, `search_tracks(args: ...)`), or from a native query. */
  source?: FunctionSource | NativeQuerySource;
}

/**
 * The SQL of a native query as the source of rows: the admin's code, each `{{arg}}` replaced by
 * its value as a bound parameter cast to the argument's type (`table` is then the logical model).
 */
export interface NativeQuerySource {
  code: ReadonlyArray<{ text: string } | { arg: IrValue }>;
}

/** A call of a SETOF-table SQL function as the source of rows. */
export interface FunctionSource {
  function: QualifiedTable;
  args: FunctionArg[];
  /** Position of the session-variables (json) argument among the positional arguments. */
  sessionArg?: number;
}

export type SelectField =
  /** `visibleIf` (inherited roles): the value is null in rows where it does not hold. */
  | { alias: string; kind: 'column'; column: string; pgType: string; jsonPath?: string[]; stringify?: boolean; visibleIf?: BoolExp }
  | { alias: string; kind: 'typename'; name: string }
  /** Object relationship (or `_by_pk`-like single row): JSON object or null. `select.limit`, when set, caps the rows read (1: a native query's relationship, where no key guarantees one row). */
  | { alias: string; kind: 'object_rel'; join: RelationshipJoin; select: SelectIR }
  /** Array relationship: JSON array (empty array when none). */
  | { alias: string; kind: 'array_rel'; join: RelationshipJoin; select: SelectIR }
  /** `<rel>_aggregate`. */
  | { alias: string; kind: 'array_agg_rel'; join: RelationshipJoin; aggregate: AggregateIR }
  /** Scalar computed field: `fn(row [, session])`, JSON value. */
  | { alias: string; kind: 'computed_scalar'; function: QualifiedTable; pgType: string; tableArg: number; sessionArg?: number; args: FunctionArg[]; stringify?: boolean; visibleIf?: BoolExp; maskedRow?: MaskedRow }
  /** SETOF-table computed field: JSON array from `fn(row, ...)` filtered/sorted like a relationship. */
  | { alias: string; kind: 'computed_table'; function: QualifiedTable; tableArg: number; sessionArg?: number; args: FunctionArg[]; select: SelectIR; maskedRow?: MaskedRow }
  /**
   * A remote relationship: the row's join columns as a JSON object (`{"id":1}`) at the field's
   * place; the executor replaces it with the remote's answer. `join` is the executor's (opaque here).
   * `visibleIf` (inherited roles): the key is null where the role does not see it (no remote call).
   */
  | { alias: string; kind: 'remote_rel_keys'; columns: Array<{ key: string; column: string; pgType: string; visibleIf?: BoolExp }>; join: unknown }
  /** Relay: the row's global id, and an array relationship as a connection. */
  | RelayIdField
  | { alias: string; kind: 'connection'; join: RelationshipJoin; connection: ConnectionIR };

/**
 * Inherited roles: the row a computed field's function receives when the role sees some columns
 * only in some rows: `ROW(<every column in table order>)::<table>`, a column with `visibleIf` null
 * where it does not hold, so the function cannot read a cell the role cannot see.
 */
export interface MaskedRow {
  table: QualifiedTable;
  columns: Array<{ column: string; visibleIf?: BoolExp }>;
}

/** A positional or named argument to a SQL function. */
export interface FunctionArg {
  name?: string;
  value: IrValue;
}

export interface AggregateIR {
  table: QualifiedTable;
  where: BoolExp;
  orderBy?: OrderByItem[];
  limit?: number | IrValue;
  offset?: number | IrValue;
  distinctOn?: string[];
  distinctOnVisibleIf?: Record<string, BoolExp>;
  fields: AggregateField[];
  /** Rows come from a set-returning function instead of `table`. */
  source?: FunctionSource;
  /**
   * The role's permission `limit` when the field also asks for `aggregate`: as in Hasura, it then
   * caps only `nodes`, and the aggregates see every row (up to the client's `limit`).
   */
  nodesLimit?: number;
}

export type AggregateField =
  | { alias: string; kind: 'typename'; name: string }
  | { alias: string; kind: 'aggregate'; ops: AggregateOp[] }
  | { alias: string; kind: 'nodes'; fields: SelectField[] };

export type AggregateOp =
  | { alias: string; kind: 'typename'; name: string }
  /** `visibleIf` (inherited roles): per counted column, the rows where it is visible. */
  | { alias: string; kind: 'count'; columns?: string[]; distinct?: boolean; visibleIf?: Record<string, BoolExp> }
  | {
      alias: string;
      kind: 'op';
      op: 'sum' | 'avg' | 'min' | 'max' | 'stddev' | 'stddev_pop' | 'stddev_samp' | 'var_pop' | 'var_samp' | 'variance';
      columns: Array<{ alias: string; column: string; pgType: string; stringify?: boolean; visibleIf?: BoolExp } | { alias: string; kind: 'typename'; name: string }>;
    };

export interface OrderByItem {
  target: OrderByTarget;
  direction: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

export type OrderByTarget =
  | { kind: 'column'; column: string; visibleIf?: BoolExp }
  /** Through an object relationship; `filter` is the related table's permission filter for the role. */
  | { kind: 'object_rel'; join: RelationshipJoin; filter: BoolExp; target: OrderByTarget }
  /** By an aggregate of an array relationship: count, or op(column). */
  | { kind: 'array_agg'; join: RelationshipJoin; filter: BoolExp; agg: { op: 'count' } | { op: 'sum' | 'avg' | 'min' | 'max' | 'stddev' | 'stddev_pop' | 'stddev_samp' | 'var_pop' | 'var_samp' | 'variance'; column: string; visibleIf?: BoolExp } };

/**
 * The Relay connection IR (`<t>_connection`, `<rel>_connection`): the rows of `select` (where with the
 * permission filter, order with the primary key last as tie-break) numbered in that order, the page
 * cut by the `after`/`before` cursors (located by their primary-key values) and `first`/`last`, and
 * the JSON the client asked for: `edges { cursor node }` and `pageInfo`.
 */
export interface ConnectionIR {
  /** The rows; `select.fields` are unused (nodes carry their own), `limit`/`offset` never set. */
  select: SelectIR;
  /** The primary key: locates cursors and ends every cursor object. */
  pk: Array<{ column: string; pgType: string }>;
  /** The keys of each cursor object, in order: the ordering columns, then the primary key. */
  cursorColumns: string[];
  /** Inherited roles: cursor columns the role sees only in some rows (their value is null elsewhere). */
  cursorVisibleIf?: Record<string, BoolExp>;
  first?: number;
  last?: number;
  /** The primary-key values the `after` / `before` cursor names. */
  after?: IrValue[];
  before?: IrValue[];
  fields: ConnectionField[];
}

export type ConnectionField =
  | { alias: string; kind: 'typename'; name: string }
  | { alias: string; kind: 'edges'; fields: EdgeField[] }
  | { alias: string; kind: 'page_info'; fields: PageInfoField[] };

export type EdgeField =
  | { alias: string; kind: 'typename'; name: string }
  | { alias: string; kind: 'cursor' }
  | { alias: string; kind: 'node'; fields: SelectField[] };

export type PageInfoField =
  | { alias: string; kind: 'typename'; name: string }
  | { alias: string; kind: 'hasNextPage' | 'hasPreviousPage' | 'startCursor' | 'endCursor' };

/** A Relay global id: `base64([1, schema, table, pk values...])`, the JSON as Postgres writes it. */
export interface RelayIdField {
  alias: string;
  kind: 'relay_id';
  table: QualifiedTable;
  columns: string[];
}
