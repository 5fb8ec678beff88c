/**
 * The decoders of Hasura v2's logical models and native queries (metadata/model/decodeNativeQueries.ts):
 * every field-type spelling v2 has written, type names to udt names, `{{arg}}` splitting, and the
 * build's checks (schemaCache/buildNativeQueries.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { BuildError, buildLogicalModel, decodeLogicalModel, decodeNativeQuery, resolveNativeQuery, udtName } from '../../../src/metadata/index.js';

test('udtName: SQL spellings and arrays to udt names; anything else refused', () => {
  const cases: Array<[string, string]> = [
    ['integer', 'int4'], ['INT', 'int4'], ['bigint', 'int8'], ['double precision', 'float8'], ['text[]', '_text'],
    ['boolean', 'bool'], ['timestamp with time zone', 'timestamptz'], ['jsonb', 'jsonb'], ['int4[]', '_int4'], ['character varying', 'varchar'],
  ];
  for (const [given, want] of cases) assert.equal(udtName(given, '$'), want, given);
  for (const bad of ['', 'text; DROP TABLE x', 'int"4', '1abc', 'text[]x']) assert.throws(() => udtName(bad, '$.t'), ApiError, bad);
});

test('logical model fields: v2.28 {scalar}, {array}, v2.26 type string + nullable, and the name map; stored in one shape', () => {
  const a = decodeLogicalModel({ name: 'm', fields: [{ name: 'id', type: { scalar: 'integer', nullable: false } }, { name: 'tags', type: { array: { scalar: 'text' } } }] }, '$');
  const b = decodeLogicalModel({ name: 'm', fields: [{ name: 'id', type: 'integer', nullable: false }, { name: 'tags', type: { array: { scalar: 'text' } } }] }, '$');
  const c = decodeLogicalModel({ name: 'm', fields: { id: { type: 'integer', nullable: false }, tags: { type: { array: { scalar: 'text' } } } } }, '$');
  assert.deepEqual(b, a);
  assert.deepEqual(c, a);
  const info = buildLogicalModel(a);
  assert.deepEqual(info.columns.map((col) => [col.name, col.pgType, col.nullable]), [['id', 'int4', false], ['tags', '_text', true]]);
  assert.throws(() => decodeLogicalModel({ name: 'm', fields: [] }, '$'), /at least one field/);
  assert.throws(() => decodeLogicalModel({ name: 'm', fields: [{ name: 'a', type: 'int' }, { name: 'a', type: 'int' }] }, '$'), /declared twice/);
  assert.throws(() => decodeLogicalModel({ name: 'bad-name', fields: [{ name: 'a', type: 'int' }] }, '$'), /not a valid GraphQL name/);
});

test('native query: {{arg}} placeholders split out, undeclared ones and unknown models refused by the build', () => {
  const nq = decodeNativeQuery({ root_field_name: 'q', code: 'SELECT id FROM t WHERE a = {{ a }} AND b = {{b}};\n', arguments: { a: { type: 'text' }, b: { type: 'int', nullable: true } }, returns: 'm' }, '$');
  assert.deepEqual(nq.arguments, { a: { type: 'text', nullable: false }, b: { type: 'int', nullable: true } });
  const models = new Map([['m', buildLogicalModel(decodeLogicalModel({ name: 'm', fields: [{ name: 'id', type: 'int' }] }, '$'))]]);
  const info = resolveNativeQuery(nq, models);
  assert.deepEqual(info.code, [{ text: 'SELECT id FROM t WHERE a = ' }, { arg: 'a' }, { text: ' AND b = ' }, { arg: 'b' }]);
  assert.deepEqual(info.arguments.map((x) => [x.name, x.pgType, x.nullable]), [['a', 'text', false], ['b', 'int4', true]]);
  assert.throws(() => resolveNativeQuery({ ...nq, code: 'SELECT {{c}}' }, models), (e) => e instanceof BuildError && /undeclared arguments: "c"/.test(e.message));
  assert.throws(() => resolveNativeQuery({ ...nq, returns: 'zz' }, models), (e) => e instanceof BuildError && /logical model "zz" not found/.test(e.message));
  assert.throws(() => decodeNativeQuery({ ...nq, type: 'mutation' }, '$'), /not supported/);
  assert.throws(() => decodeNativeQuery({ ...nq, array_relationships: [{ name: 'x' }] }, '$'), /key "using" not found/);
});

test('native query relationships: Hasura v2\'s {name, using: {column_mapping, insertion_order, remote_table | remote_native_query}}', () => {
  const base = { root_field_name: 'q', code: 'SELECT 1 AS id', returns: 'm' };
  const nq = decodeNativeQuery({
    ...base,
    object_relationships: [{ name: 'owner', using: { column_mapping: { id: 'id' }, insertion_order: null, remote_table: 'author' } }],
    array_relationships: [{ name: 'others', using: { column_mapping: { id: 'id' }, remote_native_query: 'q2' }, comment: 'the others' }],
  }, '$');
  assert.deepEqual(nq.object_relationships, [{ name: 'owner', using: { column_mapping: { id: 'id' }, insertion_order: null, remote_table: { schema: 'public', name: 'author' } } }]);
  assert.deepEqual(nq.array_relationships, [{ name: 'others', using: { column_mapping: { id: 'id' }, remote_native_query: 'q2' }, comment: 'the others' }]);
  // Empty lists are left out (the export omits them, as Hasura's does).
  assert.equal('object_relationships' in decodeNativeQuery({ ...base, object_relationships: [] }, '$'), false);
  const rel = (using: unknown, name = 'r') => ({ ...base, object_relationships: [{ name, using }] });
  assert.throws(() => decodeNativeQuery(rel({ column_mapping: { id: 'id' } }), '$'), /exactly one of "remote_table" and "remote_native_query"/);
  assert.throws(() => decodeNativeQuery(rel({ column_mapping: { id: 'id' }, remote_table: 't', remote_native_query: 'q' }), '$'), /exactly one of/);
  assert.throws(() => decodeNativeQuery(rel({ column_mapping: {}, remote_table: 't' }), '$'), /at least one column/);
  assert.throws(() => decodeNativeQuery(rel({ column_mapping: { id: 1 }, remote_table: 't' }), '$'), /expected String/);
  assert.throws(() => decodeNativeQuery(rel({ column_mapping: { id: 'id' }, remote_table: 't', insertion_order: 'first' }), '$'), /insertion_order/);
  assert.throws(() => decodeNativeQuery(rel({ column_mapping: { id: 'id' }, remote_table: 't', manual_configuration: {} }), '$'), /unexpected keys/);
  assert.throws(() => decodeNativeQuery(rel({ column_mapping: { id: 'id' }, remote_table: 't' }, 'bad-name'), '$'), /not a valid GraphQL name/);
  const twice = { name: 'r', using: { column_mapping: { id: 'id' }, remote_table: 't' } };
  assert.throws(() => decodeNativeQuery({ ...base, object_relationships: [twice], array_relationships: [twice] }, '$'), /duplicate relationships: r/);
});

test('logical model fields of a logical-model type: {logical_model} and {array: {logical_model}}, no column of their own', () => {
  const lm = decodeLogicalModel({ name: 'author', fields: [
    { name: 'id', type: { scalar: 'integer', nullable: false } },
    { name: 'best', type: { logical_model: 'article', nullable: true } },
    { name: 'articles', type: { array: { logical_model: 'article' } } },
  ] }, '$');
  assert.deepEqual(lm.fields[1].type, { logical_model: 'article', nullable: true });
  assert.deepEqual(lm.fields[2].type, { array: { logical_model: 'article', nullable: true }, nullable: true });
  assert.deepEqual(buildLogicalModel(lm).columns.map((c) => c.name), ['id']);
  assert.throws(() => decodeLogicalModel({ name: 'm', fields: [{ name: 'x', type: { logical_model: 'a' } }] }, '$'), /at least one field of a scalar type/);
  assert.throws(() => decodeLogicalModel({ name: 'm', fields: [{ name: 'id', type: 'int' }, { name: 'x', type: { array: { array: { logical_model: 'a' } } } }] }, '$'), /arrays of arrays/);
  assert.throws(() => decodeLogicalModel({ name: 'm', fields: [{ name: 'id', type: 'int' }, { name: 'x', type: { nope: 1 } }] }, '$'), /"scalar", "array" or "logical_model"/);
});
