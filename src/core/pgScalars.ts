/**
 * Postgres column type (udt name) → GraphQL scalar name, exactly as Hasura v1.3 names them
 * (`Hasura/SQL/Types.hs` `textToPGScalarType` + `pgColTyToScalar`): int4 → Int, float4 → Float,
 * text/varchar → String, bool → Boolean, a few known types under their SQL names (int2 →
 * `smallint`, int8 → `bigint`, float8, numeric, citext, timestamptz...), and every other type
 * under its own udt name (`bpchar`, `time`, `interval`, `_text`, composite type names...).
 *
 * Also the type classes the schema needs: numeric (sum/avg...), comparable (max/min), string
 * (like/ilike...), json, and "big" numbers that `stringifyNumericTypes` renders as strings.
 */

/** udt name → the PGScalarType Hasura knows it as (SQL spelling). Unknown types are absent. */
const KNOWN: Readonly<Record<string, string>> = {
  int2: 'smallint', smallint: 'smallint',
  int4: 'integer', integer: 'integer', serial: 'integer',
  int8: 'bigint', bigint: 'bigint', bigserial: 'bigint',
  float4: 'real', real: 'real',
  float8: 'float8', 'double precision': 'float8',
  numeric: 'numeric', decimal: 'numeric',
  money: 'money',
  bool: 'boolean', boolean: 'boolean',
  varchar: 'varchar', 'character varying': 'varchar',
  text: 'text',
  citext: 'citext',
  date: 'date',
  timestamp: 'timestamp', 'timestamp without time zone': 'timestamp',
  timestamptz: 'timestamptz', 'timestamp with time zone': 'timestamptz',
  timetz: 'timetz', 'time with time zone': 'timetz',
  json: 'json',
  jsonb: 'jsonb',
  geometry: 'geometry',
  geography: 'geography',
  raster: 'raster',
  uuid: 'uuid',
};

/** The four GraphQL built-in scalars Hasura maps onto. */
const BUILTIN: Readonly<Record<string, string>> = {
  integer: 'Int',
  real: 'Float',
  text: 'String',
  varchar: 'String',
  boolean: 'Boolean',
};

/** Hasura's name for a Postgres type: the SQL spelling for known types, else the udt name. */
export function pgScalarKind(pgType: string): string {
  return KNOWN[pgType] ?? pgType;
}

/** The GraphQL scalar type name for a column of Postgres type `pgType`. */
export function pgScalarName(pgType: string): string {
  const kind = pgScalarKind(pgType);
  return BUILTIN[kind] ?? kind;
}

const NUMERIC = new Set(['smallint', 'integer', 'bigint', 'real', 'float8', 'numeric', 'money']);
const STRING = new Set(['varchar', 'text', 'citext']);
const JSONISH = new Set(['json', 'jsonb']);
const NOT_COMPARABLE = new Set(['json', 'jsonb', 'geometry', 'geography', 'boolean']);
const BIG = new Set(['bigint', 'numeric', 'float8', 'money']);

const isKnown = (pgType: string): boolean => KNOWN[pgType] !== undefined;

/** Columns that get sum/avg/stddev/variance aggregates. */
export const isNumericType = (pgType: string): boolean => NUMERIC.has(pgScalarKind(pgType));
/** Columns that get max/min aggregates (Hasura: known types except json, geo, boolean). */
export const isComparableType = (pgType: string): boolean => isKnown(pgType) && !NOT_COMPARABLE.has(pgScalarKind(pgType));
/** Columns whose comparison expression has the `_like` family. */
export const isStringType = (pgType: string): boolean => STRING.has(pgScalarKind(pgType));
export const isJsonType = (pgType: string): boolean => JSONISH.has(pgScalarKind(pgType));
export const isJsonbType = (pgType: string): boolean => pgScalarKind(pgType) === 'jsonb';
/** Types rendered as JSON strings when `stringifyNumericTypes` is on (Hasura's `isBigNum`). */
export const isBigNumType = (pgType: string): boolean => BIG.has(pgScalarKind(pgType));

/** GraphQL built-in scalar names (never declared as custom scalars). */
export const BUILTIN_SCALARS: ReadonlySet<string> = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);
