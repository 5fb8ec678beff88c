/**
 * Where a value in the IR comes from. Literals from the query text and metadata are `value`;
 * GraphQL variables and session variables stay references so a planned statement can be cached
 * and re-run with new ones (they become bound parameters, never SQL text).
 */
export type ValueSource =
  | { kind: 'value'; value: unknown }
  | { kind: 'variable'; name: string; path?: ReadonlyArray<string | number> }
  | { kind: 'session'; name: string }
  | { kind: 'sessionJson' };

/** A typed value: the source plus the Postgres type it is cast to (udt name: int4, text, jsonb, _int4...). */
export interface IrValue {
  source: ValueSource;
  pgType: string;
}
