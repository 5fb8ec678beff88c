/**
 * The typed snapshot of the user database that one introspection query returns: relations with
 * their columns and constraints, and functions. Plus enum-table values, fetched separately for
 * tables marked `is_enum`. The schema-cache build reads only this (it never talks to Postgres).
 */
import type { QualifiedName } from '../../core/index.js';

export type RelationKind = 'table' | 'view' | 'materialized_view' | 'foreign_table' | 'partitioned_table';

export interface DbColumn {
  name: string;
  /** attnum: stable across renames, used to tell a rename from drop + add. */
  position: number;
  /** udt name: int4, text, _text, or a user type's name. */
  type: string;
  typeSchema: string;
  /** pg_type.typtype: b base, c composite, d domain, e enum, r range, p pseudo. */
  typeKind: string;
  isArray: boolean;
  /** The labels of a Postgres enum type (typtype 'e'), in sort order. */
  enumLabels?: string[];
  /** SQL display name (`integer`, `text`, `character varying`...), for messages. */
  displayType: string;
  nullable: boolean;
  hasDefault: boolean;
  isIdentity: boolean;
  isGenerated: boolean;
  comment: string | null;
}

export interface DbForeignKey {
  name: string;
  oid: number;
  columns: string[];
  refTable: QualifiedName;
  refColumns: string[];
}

export interface DbTable {
  oid: number;
  schema: string;
  name: string;
  kind: RelationKind;
  comment: string | null;
  columns: DbColumn[];
  primaryKey: { name: string; columns: string[] } | null;
  uniqueConstraints: Array<{ name: string; columns: string[] }>;
  foreignKeys: DbForeignKey[];
  insertable: boolean;
  updatable: boolean;
  deletable: boolean;
  /**
   * True when a write to it runs nothing that could read the session variables: an ordinary table
   * with no triggers (the engine's change counters aside), row security, rules, inheritance
   * children, cascading foreign keys into it, or defaults and constraints calling such functions
   * (introspectionQuery.ts). Absent: assume it may.
   */
  sessionFreeWrites?: boolean;
}

export interface DbFunctionArg {
  /** Null for unnamed arguments. */
  name: string | null;
  type: string;
  typeSchema: string;
  typeKind: string;
  hasDefault: boolean;
}

export interface DbFunction {
  oid: number;
  schema: string;
  name: string;
  /** Input arguments (IN / INOUT / VARIADIC), in order. */
  args: DbFunctionArg[];
  returnType: string;
  returnTypeSchema: string;
  returnTypeKind: string;
  /** When the return type is a relation's row type: that relation. */
  returnTable: QualifiedName | null;
  returnsSet: boolean;
  volatility: 'IMMUTABLE' | 'STABLE' | 'VOLATILE';
  comment: string | null;
  /** pg_proc.prokind: f function, a aggregate, w window, p procedure. */
  kind: string;
  /** Has a VARIADIC argument. */
  hasVariadic: boolean;
}

export interface EnumValue {
  value: string;
  comment: string | null;
}

/** Result of fetching an enum table's rows: the values, or why the table cannot be an enum. */
export type EnumTableValues = { ok: true; values: EnumValue[] } | { ok: false; reason: string };

export interface DbSnapshot {
  /** Keyed by `schema.name`. */
  tables: Map<string, DbTable>;
  /** Keyed by `schema.name`; several entries when the function is overloaded. */
  functions: Map<string, DbFunction[]>;
  /** For tables tracked with `is_enum`, keyed by `schema.name`. */
  enumValues: Map<string, EnumTableValues>;
}
