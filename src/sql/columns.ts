/**
 * Scalar values in the response: a column as the JSON Postgres gives it (`to_json` semantics:
 * numbers, strings, ISO timestamps, composite types as objects), with Hasura's adjustments —
 * `path` on json/jsonb columns (`col #> '{a,0}'`), big numbers as strings under
 * stringify-numeric-types (`col::text`), PostGIS values as GeoJSON — and calls of SQL functions
 * that take the row (computed fields) or the session.
 */
import type { QualifiedName } from '../core/index.js';
import type { FunctionArg } from '../ir/index.js';
import type { Aliases } from './aliases.js';
import type { BoolExp } from '../ir/index.js';
import { valueSql, visibleColumnSql } from './boolExp.js';
import { sql, type SqlFragment } from './fragment.js';

const GEO_TYPES = new Set(['geometry', 'geography']);

export interface ColumnOutput {
  column: string;
  pgType: string;
  jsonPath?: readonly string[];
  stringify?: boolean;
  visibleIf?: BoolExp;
}

/** The value written for a column field of the row `alias`. */
export function columnValue(f: ColumnOutput, alias: SqlFragment, aliases?: Aliases): SqlFragment {
  const col = visibleColumnSql(alias, f.column, f.visibleIf, aliases);
  if (f.jsonPath && f.jsonPath.length > 0) return sql`(${col} #> ${sql.value([...f.jsonPath], 'text[]')})`;
  return toJsonable(col, f.pgType, f.stringify);
}

/** Hasura's `toJSONableExp`: stringified numbers as text, PostGIS values as GeoJSON. */
export function toJsonable(value: SqlFragment, pgType: string, stringify?: boolean): SqlFragment {
  if (stringify) return sql`(${value})::text`;
  if (GEO_TYPES.has(pgType)) return sql`ST_AsGeoJSON(${value}, 15, 4)::json`;
  return value;
}

export interface FunctionCall {
  function: QualifiedName;
  args: readonly FunctionArg[];
  /** Position (among positional arguments) of the row of the parent table. */
  tableArg?: number;
  /** Position of the session-variables argument (json). */
  sessionArg?: number;
}

/**
 * `"schema"."fn"(args)`: positional arguments in order with the row and the session inserted at
 * their positions, then named ones (`"name" => value`).
 */
export function functionCallSql(call: FunctionCall, row?: SqlFragment): SqlFragment {
  const positional: SqlFragment[] = call.args.filter((a) => !a.name).map((a) => valueSql(a.value));
  const inserts: Array<[number, SqlFragment]> = [];
  if (call.tableArg !== undefined && row) inserts.push([call.tableArg, row]);
  if (call.sessionArg !== undefined) inserts.push([call.sessionArg, sql.param({ kind: 'sessionJson' }, 'json')]);
  for (const [pos, arg] of inserts.sort((a, b) => a[0] - b[0])) positional.splice(Math.min(pos, positional.length), 0, arg);
  const named = call.args.filter((a) => a.name).map((a) => sql`${sql.ident(a.name!)} => ${valueSql(a.value)}`);
  return sql`${sql.table(call.function)}(${sql.join([...positional, ...named])})`;
}
