/**
 * The checks of row-count arguments (`limit`, `offset`, and the Relay `first` / `last`), with
 * Hasura's messages, for literal values and variable values alike.
 */
import { vf } from '../graphql/index.js';

const NEGATIVE = 'expected a non-negative 32-bit integer for type "Int", but found an integer';

const outOfBounds = (value: unknown, path: string) =>
  vf(`The value ${String(value).trim()} lies outside the bounds or is not an integer. Maybe it is a float, or is there integer overflow?`, path);

/** Checks a limit value (literal or variable value): a non-negative 32-bit integer; returns it as a number. */
export function checkLimitValue(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw vf('expecting Integer value for "limit"', path);
  if (value < 0) throw vf(NEGATIVE, path);
  if (value > 2147483647) throw outOfBounds(value, path);
  return value;
}

/**
 * Checks an offset value: a non-negative integer, or a string of digits (Hasura passes those
 * through), within Postgres' bigint range (Hasura v2 reads offsets as 64-bit integers).
 */
export function checkOffsetValue(value: unknown, path: string): number {
  const digits = typeof value === 'string' && /^\s*\d+\s*$/.test(value);
  const n = digits ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw vf('expecting Integer value for "offset"', path);
  if (n < 0) throw vf(NEGATIVE, path);
  if (digits ? BigInt((value as string).trim()) > 9223372036854775807n : n > 9223372036854775807) throw outOfBounds(value, path);
  return n;
}
