/**
 * A remote schema's `customization` (Hasura v2): decoding (names checked, empty parts dropped, reserved
 * field names refused) and the name maps built from an introspection (Hasura's `getCustomizer` rules).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSchema, introspectionFromSchema, type IntrospectionQuery } from 'graphql';
import { ApiError } from '../../../src/core/index.js';
import { decodeRemoteSchemaDef } from '../../../src/metadata/model/decodeRemoteSchema.js';
import { remoteCustomizer } from '../../../src/metadata/schemaCache/remoteCustomization.js';

const base = { url: 'http://127.0.0.1:9/graphql' };
const decode = (customization: unknown) => decodeRemoteSchemaDef({ ...base, customization }, '$.args.definition');

test('a customization is decoded; empty parts are dropped and an empty one is none', () => {
  const c = { root_fields_namespace: 'ns', type_names: { prefix: 'x_', suffix: '_y', mapping: { A: 'B' } }, field_names: [{ parent_type: 'Query', prefix: 'a_' }] };
  assert.deepEqual(decode(c).customization, c);
  for (const empty of [{}, { field_names: [] }, { type_names: {} }, null]) assert.equal(decode(empty).customization, undefined);
});

test('names that are not GraphQL names are parse-failed at their path; a reserved field name is invalid-params', () => {
  const fails = (customization: unknown, code: string, path: string) => assert.throws(() => decode(customization),
    (e: unknown) => e instanceof ApiError && e.code === code && e.path === path, JSON.stringify(customization));
  fails({ root_fields_namespace: 'a b' }, 'parse-failed', '$.args.definition.customization.root_fields_namespace');
  fails({ type_names: { prefix: '1x' } }, 'parse-failed', '$.args.definition.customization.type_names.prefix');
  fails({ type_names: { mapping: { A: 'b-c' } } }, 'parse-failed', '$.args.definition.customization.type_names.mapping.A');
  fails({ field_names: [{ prefix: 'a_' }] }, 'parse-failed', '$.args.definition.customization.field_names[0]');
  fails({ field_names: [{ parent_type: 'Query', mapping: { __typename: 'kind' } }] }, 'invalid-params', '$.args.definition.customization.field_names[0].mapping');
});

const intro = (sdl: string): IntrospectionQuery => introspectionFromSchema(buildSchema(sdl));
const maps = (sdl: string, customization: Parameters<typeof remoteCustomizer>[0]) => {
  const i = intro(sdl);
  return remoteCustomizer(customization, i, new Map(i.__schema.types.map((t) => [t.name, t])));
};
const SDL = 'type Query { a: A b(x: In): String } type Mutation { m: A } type A { id: ID f: Int } input In { v: Int } enum E { X }';

test('type names: mapping over prefix/suffix; built-in scalars, __ types and (without a namespace) the root types keep theirs', () => {
  const m = maps(SDL, { type_names: { prefix: 'P_', suffix: '_S', mapping: { A: 'Thing' } } })!;
  assert.deepEqual(Object.fromEntries(m.typeNames), { A: 'Thing', In: 'P_In_S', E: 'P_E_S' });
  assert.equal(m.remoteTypeNames.get('Thing'), 'A');
  assert.equal(m.namespace, null);
});

test('a namespace prefixes the root types with it (over prefix/suffix, under mapping)', () => {
  const m = maps(SDL, { root_fields_namespace: 'ns', type_names: { prefix: 'P_', mapping: { Mutation: 'Writes' } } })!;
  assert.equal(m.typeNames.get('Query'), 'nsQuery');
  assert.equal(m.typeNames.get('Mutation'), 'Writes');
  assert.equal(m.typeNames.get('A'), 'P_A');
  assert.equal(m.namespace, 'ns');
});

test('field names per parent type: mapping over prefix/suffix; the reverse map is keyed by the engine\'s type name', () => {
  const m = maps(SDL, { type_names: { prefix: 'P_' }, field_names: [{ parent_type: 'A', prefix: 'a_', mapping: { id: 'key' } }, { parent_type: 'In', prefix: 'no_' }] })!;
  assert.deepEqual(Object.fromEntries(m.fieldNames.get('A')!), { id: 'key', f: 'a_f' });
  assert.equal(m.fieldNames.has('In'), false, 'input objects keep their field names');
  assert.equal(m.remoteFieldNames.get('P_A')!.get('key'), 'id');
  assert.equal(maps(SDL, { field_names: [{ parent_type: 'A' }] }), undefined, 'nothing renamed: no customizer');
});
