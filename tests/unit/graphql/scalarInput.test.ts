/**
 * Scalar input coercion: every scalar the engine exposes refuses what GraphQL or
 * Postgres would refuse, as `validation-failed` at the value's path, for variables and literals;
 * what is accepted is passed on unchanged (numeric/bigint text keeps its digits).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphQLScalarType, parseValue } from 'graphql';
import { ApiError } from '../../../src/core/index.js';
import { getRoleSchema, validateRequest } from '../../../src/graphql/index.js';
import { checkScalarInput, isUuidText } from '../../../src/graphql/request/scalarInput.js';
import { checkDateTimeText, checkIntervalText } from '../../../src/graphql/request/dateTimeText.js';
import { JsonBigNumber, parseJsonExact } from '../../../src/lib/index.js';
import { makeCache } from './fixtures.js';
import { ENGINE_PARTS } from '../../../src/appState.js';

const scalar = (name: string, ext?: Record<string, unknown>) => new GraphQLScalarType({ name, extensions: ext });

/** The error for a JSON (variable) value, or null when accepted. */
function jsonErr(name: string, value: unknown, ext?: Record<string, unknown>): string | null {
  try {
    checkScalarInput(scalar(name, ext), { from: 'json', value }, '$.variableValues.v');
    return null;
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, 'validation-failed');
    assert.ok(e.path === '$.variableValues.v' || e.path?.startsWith('$.variableValues.v['), e.path);
    return e.message;
  }
}

/** The error for a literal (GraphQL text), or null when accepted. */
function litErr(name: string, text: string): string | null {
  const node = parseValue(text);
  try {
    checkScalarInput(scalar(name), { from: 'literal', node, value: null }, '$.x');
    return null;
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, 'validation-failed');
    return e.message;
  }
}

const OOB = (v: string) => `The value ${v} lies outside the bounds or is not an integer. Maybe it is a float, or is there integer overflow?`;

test('Int is a 32-bit integer: strings, floats, booleans, objects and out-of-range numbers are refused', () => {
  for (const v of [0, 1, -1, 2147483647, -2147483648]) assert.equal(jsonErr('Int', v), null, String(v));
  assert.equal(jsonErr('Int', 'abc'), 'expected a 32-bit integer for type "Int", but found a string');
  assert.equal(jsonErr('Int', '5'), 'expected a 32-bit integer for type "Int", but found a string');
  assert.equal(jsonErr('Int', true), 'expected a 32-bit integer for type "Int", but found a boolean');
  assert.equal(jsonErr('Int', { a: 1 }), 'expected a 32-bit integer for type "Int", but found an object');
  assert.equal(jsonErr('Int', [1]), 'expected a 32-bit integer for type "Int", but found a list');
  assert.equal(jsonErr('Int', 2147483648), OOB('2147483648'));
  assert.equal(jsonErr('Int', -2147483649), OOB('-2147483649'));
  assert.equal(jsonErr('Int', 1.5), OOB('1.5'));
  assert.equal(jsonErr('Int', 1e21), OOB('1e+21'));
  assert.equal(litErr('Int', '2147483647'), null);
  assert.equal(litErr('Int', '2147483648'), OOB('2147483648'));
  assert.equal(litErr('Int', '99999999999999999999'), OOB('99999999999999999999'));
  assert.equal(litErr('Int', '1.0'), 'expected a 32-bit integer for type "Int", but found a float');
  assert.equal(litErr('Int', '"1"'), 'expected a 32-bit integer for type "Int", but found a string');
});

test('Float, Boolean, String and ID follow the GraphQL spec', () => {
  assert.equal(jsonErr('Float', 1.5), null);
  assert.equal(litErr('Float', '3'), null);
  assert.equal(jsonErr('Float', '1.5'), 'expected a float for type "Float", but found a string');
  assert.match(litErr('Float', '1e400')!, /outside the bounds/);
  assert.equal(jsonErr('Boolean', true), null);
  assert.equal(jsonErr('Boolean', 'true'), 'expected a boolean for type "Boolean", but found a string');
  assert.equal(litErr('Boolean', '1'), 'expected a boolean for type "Boolean", but found an integer');
  assert.equal(jsonErr('String', 'x'), null);
  assert.equal(jsonErr('String', 5), 'expected a string for type "String", but found a number');
  assert.equal(litErr('String', 'true'), 'expected a string for type "String", but found a boolean');
  assert.equal(jsonErr('ID', 'x'), null);
  assert.equal(jsonErr('ID', 7), null);
  assert.equal(litErr('ID', '7'), null);
  assert.equal(jsonErr('ID', 1.5), OOB('1.5'));
  assert.equal(jsonErr('ID', false), 'expected a String or a 32-bit integer for type "ID", but found a boolean');
});

test('smallint and bigint: integers or strings of digits, in range; bigint text keeps its digits', () => {
  assert.equal(jsonErr('bigint', '9223372036854775807'), null);
  assert.equal(jsonErr('bigint', ' -9223372036854775808 '), null);
  assert.equal(jsonErr('bigint', 9007199254740991), null);
  assert.equal(litErr('bigint', '9223372036854775807'), null);
  assert.equal(jsonErr('bigint', '9223372036854775808'), OOB('9223372036854775808'));
  assert.equal(litErr('bigint', '9223372036854775808'), OOB('9223372036854775808'));
  assert.equal(jsonErr('bigint', 'abc'), 'expected a 64-bit integer, or one represented as a string for type "bigint", but found "abc"');
  assert.equal(jsonErr('bigint', '1.5'), 'expected a 64-bit integer, or one represented as a string for type "bigint", but found "1.5"');
  assert.equal(jsonErr('bigint', true), 'expected a 64-bit integer, or one represented as a string for type "bigint", but found a boolean');
  assert.equal(jsonErr('smallint', 32767), null);
  assert.equal(jsonErr('smallint', 32768), OOB('32768'));
  assert.equal(jsonErr('smallint', '-32769'), OOB('-32769'));
});

test('numeric and float8: numbers or numeric strings (NaN, Infinity too)', () => {
  for (const v of [1, 1.25, '12345678901234567890.123456789', '-1e10', ' .5 ', 'NaN', '-Infinity']) assert.equal(jsonErr('numeric', v), null, String(v));
  assert.equal(litErr('numeric', '12345678901234567890.123456789'), null);
  assert.equal(jsonErr('numeric', '12abc'), 'expected a number, or a number represented as a string for type "numeric", but found "12abc"');
  assert.equal(jsonErr('numeric', {}), 'expected a number, or a number represented as a string for type "numeric", but found an object');
  assert.equal(jsonErr('float8', 'inf'), null);
  assert.equal(jsonErr('float8', ''), 'expected a number, or a number represented as a string for type "float8", but found ""');
  assert.equal(jsonErr('money', '$1,000.00'), null);
  assert.equal(jsonErr('money', 'lots'), 'expected an amount of money for type "money", but found "lots"');
});

test('uuid: Postgres uuid_in forms only', () => {
  for (const v of ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'A0EEBC999C0B4EF8BB6D6BB9BD380A11', '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', 'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11']) {
    assert.ok(isUuidText(v), v);
  }
  for (const v of ['abc', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-', 'g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{a0eebc999c0b4ef8bb6d6bb9bd380a11', '']) {
    assert.ok(!isUuidText(v), v);
  }
  assert.equal(jsonErr('uuid', 'abc'), 'expected a UUID for type "uuid", but found "abc"');
  assert.equal(jsonErr('uuid', 5), 'expected a UUID for type "uuid", but found a number');
});

test('dates, timestamps, times: ISO 8601 with Postgres variations; impossible dates refused', () => {
  for (const v of ['2020-02-29', '2020-01-01T10:00:00Z', '2020-01-01 10:00', 'today', 'infinity', '0044-03-15 BC']) assert.ok(checkDateTimeText(v, 'date'), v);
  for (const v of ['2021-02-29', '2020-13-01', '2020-00-10', '2020-04-31', 'abc', '2020/01/01x', '', '12:00']) assert.ok(!checkDateTimeText(v, 'date'), v);
  for (const v of ['2020-01-01T10:00:00.123456+05:30', '2020-01-01 10:00:00 UTC', '2020-01-01t10:00:00z', '2020-01-01 24:00:00', 'now', 'epoch', '-infinity']) {
    assert.ok(checkDateTimeText(v, 'timestamp'), v);
  }
  for (const v of ['2020-01-01T25:00:00', '2020-01-01T10:60:00', '2020-01-01T24:00:01', 'yesterdayish', '2020-01-01T']) assert.ok(!checkDateTimeText(v, 'timestamp'), v);
  for (const v of ['10:00', '23:59:59.999', '10:00:00+02', '10:00:00-03:30', 'allballs', '2020-01-01 10:00:00']) assert.ok(checkDateTimeText(v, 'time'), v);
  for (const v of ['25:00', '10:61', '10', 'noon']) assert.ok(!checkDateTimeText(v, 'time'), v);
  // Postgres' special words as Hasura hands them over (untyped literals Postgres reads): now(), today() ...
  for (const v of ['now()', 'NOW()', ' now () ', 'today()', 'infinity()', 'epoch', 'Tomorrow']) {
    assert.ok(checkDateTimeText(v, 'timestamp'), v);
    assert.ok(checkDateTimeText(v, 'date'), v);
  }
  for (const v of ['now()', 'allballs()']) assert.ok(checkDateTimeText(v, 'time'), v);
  for (const v of ['now()+1 day', 'now(1)', 'now());--', 'current_timestamp', '()', 'today ( ) x']) assert.ok(!checkDateTimeText(v, 'timestamp'), v);
  for (const v of ['today()', 'epoch']) assert.ok(!checkDateTimeText(v, 'time'), v);
  assert.equal(jsonErr('date', '2021-02-30'), 'expected a date (YYYY-MM-DD) for type "date", but found "2021-02-30"');
  assert.equal(jsonErr('timestamptz', 1577836800), 'expected a timestamp with time zone (ISO 8601: YYYY-MM-DD[THH:MM:SS][±HH:MM]) for type "timestamptz", but found a number');
  assert.equal(jsonErr('timestamptz', '2020-01-01T00:00:00Z'), null);
});

test('interval: verbose, SQL-standard and ISO 8601 forms', () => {
  for (const v of ['1 day', '1 year 2 mons 3 days 04:05:06', '@ 1 minute ago', '-1 hour', 'P1Y2M3DT4H5M6S', 'PT0.5S', 'P0001-02-03T04:05:06', '1-2', '3 4:05:06', '5', '1.5 hours', 'infinity']) {
    assert.ok(checkIntervalText(v), v);
  }
  for (const v of ['', 'abc', '1 fortnight', 'P', 'PT', 'P1H', '1 day and a bit']) assert.ok(!checkIntervalText(v), v);
});

test('arrays: lists checked item by item (nulls and nested lists allowed), or a Postgres array literal', () => {
  assert.equal(jsonErr('_text', ['a', null, 'b']), null);
  assert.equal(jsonErr('_text', '{a,b}'), null);
  assert.equal(jsonErr('_int4', [[1, 2], [3, 4]]), null);
  assert.equal(jsonErr('_int4', '[1:2]={1,2}'), null);
  assert.equal(jsonErr('_int4', [1, 'x']), 'expected a 32-bit integer for type "Int", but found a string');
  assert.throws(() => checkScalarInput(scalar('_int4'), { from: 'json', value: [[1], [2, 'x']] }, '$.v'), (e: ApiError) => e.path === '$.v[1][1]');
  assert.equal(jsonErr('_uuid', ['nope']), 'expected a UUID for type "uuid", but found "nope"');
  assert.equal(jsonErr('_text', 'a,b'), 'expected a list, or a Postgres array literal for type "_text", but found "a,b"');
  assert.equal(jsonErr('_text', 5), 'expected a list, or a Postgres array literal for type "_text", but found a number');
});

test('Postgres enums: one of the labels; other types take strings; json takes anything', () => {
  const labels = { svc: { pgEnumLabels: ['happy', 'sad'] } };
  assert.equal(jsonErr('mood', 'happy', labels), null);
  assert.equal(jsonErr('mood', 'angry', labels), 'expected one of "happy", "sad" for type "mood", but found "angry"');
  assert.equal(jsonErr('mood', 1, labels), 'expected a string for type "mood", but found a number');
  assert.equal(jsonErr('citext', 'x'), null);
  assert.equal(jsonErr('bpchar', 1), 'expected a string for type "bpchar", but found a number');
  for (const v of [1, 'x', { a: [1] }, [1, 'a'], true]) assert.equal(jsonErr('jsonb', v), null);
});

test('through validation: variables at $.variableValues.<name>[...], literals at the argument path; limit keeps its messages', () => {
  const sc = makeCache();
  const run = (query: string, variables?: Record<string, unknown>) => {
    try {
      validateRequest(getRoleSchema(sc, 'admin', ENGINE_PARTS.schema), { query, variables });
    } catch (e) {
      assert.ok(e instanceof ApiError);
      return { code: e.code, path: e.path, message: e.message };
    }
    return null;
  };
  assert.deepEqual(run('query ($id: Int!) { author_by_pk(id: $id) { id } }', { id: 'abc' }),
    { code: 'validation-failed', path: '$.variableValues.id', message: 'expected a 32-bit integer for type "Int", but found a string' });
  assert.deepEqual(run('query ($w: author_bool_exp) { author(where: $w) { id } }', { w: { id: { _in: [1, 'x'] } } }),
    { code: 'validation-failed', path: '$.variableValues.w.id._in[1]', message: 'expected a 32-bit integer for type "Int", but found a string' });
  assert.deepEqual(run('{ author(where: {createdAt: {_gt: "not a time"}}) { id } }'), {
    code: 'validation-failed', path: '$.selectionSet.author.args.where.createdAt._gt',
    message: 'expected a timestamp with time zone (ISO 8601: YYYY-MM-DD[THH:MM:SS][±HH:MM]) for type "timestamptz", but found "not a time"',
  });
  assert.deepEqual(run('{ author(where: {big: {_eq: "12x"}}) { id } }')?.path, '$.selectionSet.author.args.where.big._eq');
  assert.equal(run('{ author(where: {big: {_eq: "9223372036854775807"}}) { id } }'), null);
  assert.equal(run('query ($d: timestamptz = "2020-13-01") { author(where: {createdAt: {_eq: $d}}) { id } }')?.path, '$.variableValues.defaultValue');
  // limit / offset literals keep the planner's (Hasura's) messages; offset takes a string of digits
  assert.equal(run('{ author(limit: "3") { id } }'), null);
  assert.equal(run('{ author(offset: "3") { id } }'), null);
});

test('long numbers from JSON keep their digits (JsonBigNumber) and are checked by their text', () => {
  const big = (parseJsonExact('{"v": 9223372036854775807}') as { v: unknown }).v;
  assert.ok(big instanceof JsonBigNumber);
  assert.equal(jsonErr('bigint', big), null);
  assert.equal(jsonErr('numeric', parseJsonExact('12345678901234567890.123456789')), null);
  assert.equal(jsonErr('Float', parseJsonExact('0.12345678901234567890')), null);
  assert.equal(jsonErr('Int', big), OOB('9223372036854775807'));
  assert.equal(jsonErr('bigint', parseJsonExact('9223372036854775808')), OOB('9223372036854775808'));
  assert.equal(jsonErr('String', big), 'expected a string for type "String", but found a number');
  for (const v of [big, { a: big }]) assert.equal(jsonErr('jsonb', v), null);
});
