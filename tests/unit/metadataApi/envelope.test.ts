import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { decodeQuery, mutates, OPERATIONS, OP_TYPES } from '../../../src/metadataApi/index.js';

const fails = (code: string, message: string, path: string) => (e: unknown) =>
  e instanceof ApiError && e.code === code && e.message === message && e.path === path;

test('every operation type has exactly one handler', () => {
  assert.deepEqual(Object.keys(OPERATIONS).sort(), [...OP_TYPES].sort());
  for (const t of OP_TYPES) assert.equal(typeof OPERATIONS[t].run, 'function', t);
  assert.equal(OPERATIONS.select.adminOnly, false);
  assert.equal(OPERATIONS.run_sql.adminOnly, true);
});

test('track_table accepts {table, is_enum}, the flat {schema, name} and a bare name; v2 adds configuration', () => {
  const t = { schema: 'public', name: 'author' };
  assert.deepEqual(decodeQuery({ type: 'track_table', args: { schema: 'public', name: 'author' } }), { type: 'track_table', version: 1, args: { table: t, isEnum: false } });
  assert.deepEqual(decodeQuery({ type: 'track_table', args: { table: 'author', is_enum: true } }), { type: 'track_table', version: 1, args: { table: t, isEnum: true } });
  assert.deepEqual(decodeQuery({ type: 'track_table', args: 'author' }).type, 'track_table');
  const v2 = decodeQuery({ type: 'track_table', version: 2, args: { table: 'author', configuration: { custom_root_fields: { select: 'Authors' } } } });
  assert.deepEqual(v2, {
    type: 'track_table',
    version: 2,
    args: { table: t, isEnum: false, configuration: { custom_root_fields: { select: 'Authors' }, custom_column_names: {} } },
  });
});

test('bulk decodes every item first; errors point into args without an "args" prefix', () => {
  const q = decodeQuery({ type: 'bulk', args: [{ type: 'run_sql', args: { sql: 'select 1' } }, { type: 'export_metadata', args: {} }] });
  assert.equal(q.type, 'bulk');
  assert.equal(mutates(q), true);
  assert.equal(mutates(decodeQuery({ type: 'export_metadata', args: {} })), false);
  assert.throws(() => decodeQuery('type: count'), fails('parse-failed', 'expected Object, encountered String', '$'));
  assert.throws(() => decodeQuery({ args: {} }), fails('parse-failed', 'key "type" not found', '$'));
  assert.throws(() => decodeQuery({ type: 'random', args: {} }), fails('parse-failed', 'unknown query type: "random"', '$'));
  assert.throws(
    () => decodeQuery({ type: 'create_object_relationship', args: { table: 'a', name: 'r', using: { foreign_key_constraint_on: 1 } } }),
    fails('parse-failed', 'expected String, encountered Number', '$.using.foreign_key_constraint_on'),
  );
  assert.throws(
    () => decodeQuery({ type: 'bulk', args: [{ type: 'run_sql', args: {} }] }),
    fails('parse-failed', 'key "sql" not found', '$[0]'),
  );
  assert.throws(
    () => decodeQuery({ type: 'create_select_permission', args: { table: 'a', role: 'r', permission: { columns: '*', filter: {}, limit: 'x' } } }),
    fails('parse-failed', 'expected Int, encountered String', '$.permission.limit'),
  );
});

test('track_function takes the name (v1), {function, configuration} (v2), and the legacy config spelling', () => {
  const f = { schema: 'public', name: 'search' };
  assert.deepEqual(decodeQuery({ type: 'track_function', args: { name: 'search', schema: 'public' } }).type === 'track_function' && (decodeQuery({ type: 'track_function', args: { name: 'search' } }) as { args: unknown }).args, { function: f });
  assert.deepEqual((decodeQuery({ type: 'track_function', version: 2, args: { function: 'search', configuration: { session_argument: 's' } } }) as { args: unknown }).args, {
    function: f,
    configuration: { session_argument: 's' },
  });
  assert.deepEqual((decodeQuery({ type: 'track_function', version: 2, args: { function: f, config: { session_variable_argument: 'h' } } }) as { args: unknown }).args, {
    function: f,
    configuration: { session_argument: 'h' },
  });
});

test('version 2 only for the operations that have one', () => {
  for (const type of ['track_table', 'set_table_custom_fields', 'track_function']) {
    assert.equal((decodeQuery({ type, version: 2, args: type === 'track_function' ? { function: 'f' } : { table: 'a' } }) as { version: number }).version, 2, type);
  }
  for (const type of ['select', 'run_sql', 'untrack_table', 'export_metadata']) {
    assert.throws(() => decodeQuery({ type, version: 2, args: {} }), fails('parse-failed', `unknown query type: "${type}"`, '$'), type);
  }
});
