/**
 * Input coercion for every scalar the engine exposes, run on variables (JSON) and on literals in
 * the query text before any SQL is built or sent: GraphQL's built-ins per the spec
 * (`Int` is a 32-bit integer, `Float` a finite number, `String`/`Boolean` only strings/booleans,
 * `ID` a string or an integer), and the Postgres scalars the way Postgres' input functions would
 * read them (uuid, dates and times, interval, numeric/bigint/smallint, arrays, pg enums), so bad
 * input is `validation-failed` at the value's path instead of a `data-exception` from Postgres.
 *
 * Messages follow Hasura's parser (`expected a 32-bit integer for type "Int", but found a
 * string`; `The value … lies outside the bounds or is not an integer…`). Accepted values are
 * passed on unchanged (numeric and bigint text keeps every digit; Postgres does the parsing).
 */
import { Kind, type GraphQLScalarType, type ValueNode } from 'graphql';
import { JsonBigNumber } from '../../lib/index.js';
import { vf } from './messages.js';
import { pgScalarName } from '../../core/index.js';
import { checkDateTimeText, checkIntervalText, type DateTimeKind } from './dateTimeText.js';

/** What was given: a JSON value (variables) or a literal of the query text with its JSON form. */
export type ScalarInput = { from: 'json'; value: unknown } | { from: 'literal'; node: ValueNode; value: unknown };

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT16 = 32767;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
const DECIMAL_TEXT = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const FLOAT_SPECIAL = /^\s*[+-]?(nan|inf|infinity)\s*$/i;
const UUID_TEXT = /^[0-9a-f]{4}(-?[0-9a-f]{4}){7}$/i;

/** Hasura's `describeValue`: how the given value reads in a message. */
export function describeInput(input: ScalarInput): string {
  if (input.from === 'literal') {
    switch (input.node.kind) {
      case Kind.INT: return 'an integer';
      case Kind.FLOAT: return 'a float';
      case Kind.STRING: return 'a string';
      case Kind.BOOLEAN: return 'a boolean';
      case Kind.NULL: return 'null';
      case Kind.ENUM: return 'an enum value';
      case Kind.LIST: return 'a list';
      case Kind.OBJECT: return 'an object';
      default: return 'a value';
    }
  }
  const v = input.value;
  if (v === null || v === undefined) return 'null';
  if (v instanceof JsonBigNumber) return 'a number';
  if (Array.isArray(v)) return 'a list';
  switch (typeof v) {
    case 'string': return 'a string';
    case 'number': return 'a number';
    case 'boolean': return 'a boolean';
    default: return 'an object';
  }
}

const mismatch = (name: string, expected: string, input: ScalarInput, path: string) =>
  vf(`expected ${expected} for type "${name}", but found ${describeInput(input)}`, path);

const shown = (s: string): string => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);
const badText = (name: string, expected: string, text: string, path: string) =>
  vf(`expected ${expected} for type "${name}", but found ${shown(text)}`, path);

const outOfBounds = (text: string, path: string) =>
  vf(`The value ${text} lies outside the bounds or is not an integer. Maybe it is a float, or is there integer overflow?`, path);

/** The number given, as text (literal text keeps every digit), or undefined when not a number. */
function numberText(input: ScalarInput): string | undefined {
  if (input.from === 'literal') {
    return input.node.kind === Kind.INT || input.node.kind === Kind.FLOAT ? input.node.value : undefined;
  }
  if (input.value instanceof JsonBigNumber) return input.value.text;
  return typeof input.value === 'number' ? String(input.value) : undefined;
}

/** An integer (number or literal) within [min, max]; otherwise Hasura's bounds message. */
function checkIntegerNumber(text: string, min: bigint, max: bigint, path: string): void {
  // Fast path (every Int on every request): a short decimal literal is exact as a JS number.
  if (text.length <= 15 && /^-?\d+$/.test(text)) {
    const n = Number(text);
    if (n >= Number(min) && n <= Number(max)) return;
    throw outOfBounds(text, path);
  }
  if (!/^[+-]?\d+$/.test(text)) {
    // JSON numbers print as e.g. 1e+21 or 1.5: integral only if the value is a safe integer
    const n = Number(text);
    if (!Number.isInteger(n) || !Number.isSafeInteger(n)) throw outOfBounds(text, path);
    text = String(n);
  }
  const b = BigInt(text);
  if (b < min || b > max) throw outOfBounds(text, path);
}

/** A string an integer type's input function accepts (digits, optional sign and blanks) in range. */
function checkIntegerText(name: string, expected: string, text: string, min: bigint, max: bigint, path: string): void {
  if (!INTEGER_TEXT.test(text)) throw badText(name, expected, text, path);
  const b = BigInt(text.trim());
  if (b < min || b > max) throw outOfBounds(text.trim(), path);
}

function checkNumberish(name: string, input: ScalarInput, path: string, allowSpecial: boolean): void {
  const expected = 'a number, or a number represented as a string';
  const text = numberText(input);
  if (text !== undefined) {
    // a JSON number beyond a double's range arrives as Infinity: its digits are gone
    if (input.from === 'json' && typeof input.value === 'number' && !Number.isFinite(input.value)) throw badText(name, expected, text, path);
    return;
  }
  if (typeof input.value !== 'string' || (input.from === 'literal' && input.node.kind !== Kind.STRING)) throw mismatch(name, expected, input, path);
  if (DECIMAL_TEXT.test(input.value) || (allowSpecial && FLOAT_SPECIAL.test(input.value))) return;
  throw badText(name, expected, input.value, path);
}

/** The string given (a JSON string, or a string literal), or undefined. */
function stringOf(input: ScalarInput): string | undefined {
  if (input.from === 'literal') return input.node.kind === Kind.STRING ? input.node.value : undefined;
  return typeof input.value === 'string' ? input.value : undefined;
}

/** Postgres `uuid_in`: 32 hex digits, a hyphen allowed after any group of four, optional braces. */
export function isUuidText(s: string): boolean {
  const inner = s.startsWith('{') && s.endsWith('}') ? s.slice(1, -1) : s;
  return UUID_TEXT.test(inner);
}

const DATE_TIME: Readonly<Record<string, { kind: DateTimeKind; expected: string }>> = {
  date: { kind: 'date', expected: 'a date (YYYY-MM-DD)' },
  timestamp: { kind: 'timestamp', expected: 'a timestamp (ISO 8601: YYYY-MM-DD[THH:MM:SS])' },
  timestamptz: { kind: 'timestamp', expected: 'a timestamp with time zone (ISO 8601: YYYY-MM-DD[THH:MM:SS][±HH:MM])' },
  time: { kind: 'time', expected: 'a time of day (HH:MM[:SS])' },
  timetz: { kind: 'time', expected: 'a time of day with time zone (HH:MM[:SS][±HH:MM])' },
};

/** The labels of a Postgres enum scalar (set by the schema builder), when known. */
function pgEnumLabels(type: GraphQLScalarType): readonly string[] | undefined {
  const svc = (type.extensions as { svc?: { pgEnumLabels?: readonly string[] } } | undefined)?.svc;
  return svc?.pgEnumLabels;
}

/**
 * Checks one non-null scalar value; throws `validation-failed` at `path`. `name` defaults to the
 * type's name (array elements are checked under their element's scalar name).
 */
export function checkScalarInput(type: GraphQLScalarType, input: ScalarInput, path: string, name = type.name): void {
  const str = stringOf(input);
  switch (name) {
    case 'json':
    case 'jsonb':
      return;
    case 'Int': {
      if (input.from === 'json' && Number.isInteger(input.value) && (input.value as number) >= INT32_MIN && (input.value as number) <= INT32_MAX) return;
      const text = input.from === 'literal' ? (input.node.kind === Kind.INT ? input.node.value : undefined) : numberText(input);
      if (text === undefined) throw mismatch(name, 'a 32-bit integer', input, path);
      checkIntegerNumber(text, BigInt(INT32_MIN), BigInt(INT32_MAX), path);
      return;
    }
    case 'Float': {
      const text = numberText(input);
      if (text === undefined) throw mismatch(name, 'a float', input, path);
      if (!Number.isFinite(Number(text))) throw vf(`The value ${text} lies outside the bounds. Is it overflowing the float bounds?`, path);
      return;
    }
    case 'String':
      if (str === undefined) throw mismatch(name, 'a string', input, path);
      return;
    case 'Boolean':
      if (input.from === 'literal' ? input.node.kind !== Kind.BOOLEAN : typeof input.value !== 'boolean') throw mismatch(name, 'a boolean', input, path);
      return;
    case 'ID': {
      if (str !== undefined) return;
      const text = input.from === 'literal' ? (input.node.kind === Kind.INT ? input.node.value : undefined) : numberText(input);
      if (text === undefined) throw mismatch(name, 'a String or a 32-bit integer', input, path);
      checkIntegerNumber(text, INT64_MIN, INT64_MAX, path);
      return;
    }
    case 'smallint':
    case 'bigint': {
      const [min, max] = name === 'smallint' ? [BigInt(-INT16 - 1), BigInt(INT16)] : [INT64_MIN, INT64_MAX];
      const expected = `a ${name === 'smallint' ? 16 : 64}-bit integer, or one represented as a string`;
      const text = input.from === 'literal' ? (input.node.kind === Kind.INT ? input.node.value : undefined) : numberText(input);
      if (text !== undefined) return checkIntegerNumber(text, min, max, path);
      if (str === undefined) throw mismatch(name, expected, input, path);
      return checkIntegerText(name, expected, str, min, max, path);
    }
    case 'numeric':
      return checkNumberish(name, input, path, true);
    case 'float8':
      return checkNumberish(name, input, path, true);
    case 'money':
      if (numberText(input) !== undefined) return;
      if (str === undefined) throw mismatch(name, 'a number or a string', input, path);
      if (!/\d/.test(str)) throw badText(name, 'an amount of money', str, path);
      return;
    case 'uuid':
      if (str === undefined) throw mismatch(name, 'a UUID', input, path);
      if (!isUuidText(str)) throw badText(name, 'a UUID', str, path);
      return;
    case 'interval':
      if (str === undefined) throw mismatch(name, 'an interval', input, path);
      if (!checkIntervalText(str)) throw badText(name, "an interval (e.g. '1 day 02:00:00', 'P1DT2H')", str, path);
      return;
    default:
      break;
  }
  const dt = DATE_TIME[name];
  if (dt) {
    if (str === undefined) throw mismatch(name, dt.expected, input, path);
    if (!checkDateTimeText(str, dt.kind)) throw badText(name, dt.expected, str, path);
    return;
  }
  if (name.startsWith('_')) return checkArray(type, input, path, name);
  // Other Postgres types (text-like, pg enums, network types, composites...): a string, read by Postgres.
  if (str === undefined) throw mismatch(name, 'a string', input, path);
  const labels = pgEnumLabels(type);
  if (labels && !labels.includes(str)) {
    throw vf(`expected one of ${labels.map((l) => JSON.stringify(l)).join(', ')} for type "${name}", but found ${shown(str)}`, path);
  }
}

/**
 * A Postgres array scalar (`_text`, `_int4`...): a list whose items are checked as the element's
 * scalar (nulls and nested lists allowed), or a string that Postgres reads as an array literal.
 */
function checkArray(type: GraphQLScalarType, input: ScalarInput, path: string, name: string): void {
  const elem = pgScalarName(name.slice(1));
  const expected = 'a list, or a Postgres array literal';
  const str = stringOf(input);
  if (str !== undefined) {
    if (!/^\s*(\[[^\]]*\]\s*)*=?\s*\{[\s\S]*\}\s*$/.test(str)) throw badText(name, expected, str, path);
    return;
  }
  const items = input.from === 'literal'
    ? (input.node.kind === Kind.LIST ? input.node.values.map((node, i) => ({ node, value: (input.value as unknown[])[i] })) : undefined)
    : (Array.isArray(input.value) ? input.value.map((value) => ({ node: undefined, value })) : undefined);
  if (!items) throw mismatch(name, expected, input, path);
  items.forEach((it, i) => {
    const p = `${path}[${i}]`;
    if (it.value === null) return;
    const itemInput: ScalarInput = it.node ? { from: 'literal', node: it.node, value: it.value } : { from: 'json', value: it.value };
    const isList = it.node ? it.node.kind === Kind.LIST : Array.isArray(it.value);
    if (isList) return checkArray(type, itemInput, p, name);
    checkScalarInput(type, itemInput, p, elem);
  });
}
