/**
 * Pure parts of actions: type strings (metadata/schemaCache/buildActions.ts), the action and
 * custom-type decoders (metadata/model/decodeActions.ts), the handler-answer checks
 * (actions/callHandler.ts) and the action input built from annotated values (actions/actionInput.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphQLString } from 'graphql';
import { ApiError } from '../../../src/core/index.js';
import { decodeActionDefinition, decodeCustomTypes, parseTypeRef, type ActionInfo } from '../../../src/metadata/index.js';
import { actionInput, checkOutput } from '../../../src/actions/index.js';

test('GraphQL type strings', () => {
  assert.deepEqual(parseTypeRef('[UserInput!]!'), { kind: 'list', nonNull: true, of: { kind: 'named', name: 'UserInput', nonNull: true } });
  assert.deepEqual(parseTypeRef('uuid'), { kind: 'named', name: 'uuid', nonNull: false });
  assert.equal(parseTypeRef('[Int'), undefined);
  assert.equal(parseTypeRef('no spaces'), undefined);
});

test('action definitions: defaults, header env names, paths', () => {
  const d = decodeActionDefinition({ output_type: 'O', handler: 'http://h', arguments: [{ name: 'a', type: 'Int!' }] }, '$.definition');
  assert.equal(d.type, 'mutation');
  assert.equal(d.kind, 'synchronous');
  assert.throws(
    () => decodeActionDefinition({ output_type: 'O', handler: 'h', headers: [{ name: 'x', value_from_env: 'SVC_GRAPHQL_ADMIN_SECRET' }] }, '$.definition'),
    (e: ApiError) => e.path === '$.definition.headers[0]' && e.message === 'env variables start with "SVC_GRAPHQL_" are not allowed for value_from_env',
  );
  assert.throws(() => decodeActionDefinition({ output_type: 'O', handler: 'h', kind: 'later' }, '$'), /synchronous/);
  assert.throws(() => decodeActionDefinition({ handler: 'h' }, '$'), /key "output_type" not found/);
});

test('custom types keep only what was given', () => {
  const ct = decodeCustomTypes({ objects: [{ name: 'O', fields: [{ name: 'id', type: 'Int!' }], relationships: [{ name: 'r', type: 'object', remote_table: 't', field_mapping: { id: 'id' } }] }] }, '$');
  assert.deepEqual(ct, { objects: [{ name: 'O', fields: [{ name: 'id', type: 'Int!' }], relationships: [{ name: 'r', type: 'object', remote_table: { schema: 'public', name: 't' }, field_mapping: { id: 'id' } }] }] });
  assert.throws(() => decodeCustomTypes({ objects: [{ name: 'O', fields: [], relationships: [{ name: 'r', type: 'many', remote_table: 't', field_mapping: {} }] }] }, '$'), /"object" or "array"/);
});

const action = (output: string, fields: Array<[string, string]>): ActionInfo => ({
  name: 'a',
  meta: { name: 'a', definition: { type: 'mutation', kind: 'synchronous', arguments: [], output_type: output, handler: 'h' } },
  arguments: [],
  output: parseTypeRef(output)!,
  outputObject: { name: 'O', description: null, relationships: [], fields: fields.map(([name, type]) => ({ name, type: parseTypeRef(type)!, description: null })) },
  url: 'h',
  headers: [],
  roles: new Set(),
});

test('handler answers are checked against the output type', () => {
  const fail = (code: string, message: string) => new ApiError(code, message);
  const o = action('O', [['id', 'Int!'], ['name', 'String']]);
  const msg = (a: ActionInfo, v: unknown) => {
    try {
      checkOutput(a, v, fail);
      return 'ok';
    } catch (e) {
      return `${(e as ApiError).code}: ${(e as ApiError).message}`;
    }
  };
  assert.equal(msg(o, { id: 1 }), 'ok');
  assert.equal(msg(o, [{ id: 1 }]), 'unexpected: expecting object for action webhook response but got array');
  assert.equal(msg(action('[O]', [['id', 'Int!']]), { id: 1 }), 'unexpected: expecting array for action webhook response but got object');
  assert.equal(msg(o, 'x'), 'parse-failed: expecting object or array of objects for action webhook response');
  assert.equal(msg(o, { id: 1, age: 2, x: 3 }), 'unexpected: unexpected fields in webhook response: age, x');
  assert.equal(msg(o, { id: null }), 'unexpected: expecting not null value for field "id"');
  assert.equal(msg(o, { name: 'n' }), 'unexpected: field "id" expected in webhook response, but not found');
});

test('a scalar or enum output is checked as Hasura v2 checks it (an enum against its values)', () => {
  const fail = (code: string, message: string) => new ApiError(code, message);
  const scalar = (output: string, outputScalar: ActionInfo['outputScalar']): ActionInfo => ({ ...action(output, []), outputObject: undefined, outputScalar });
  const msg = (a: ActionInfo, v: unknown) => {
    try {
      checkOutput(a, v, fail);
      return 'ok';
    } catch (e) {
      return `${(e as ApiError).code}: ${(e as ApiError).message}`;
    }
  };
  const strings = scalar('[String]!', { kind: 'builtin', name: 'String' });
  assert.equal(msg(strings, ['a', null]), 'ok');
  assert.equal(msg(strings, null), 'unexpected: got null for the action webhook response');
  assert.equal(msg(strings, 'a'), 'unexpected: expecting array for the action webhook response');
  assert.equal(msg(strings, [1]), 'unexpected: got scalar Number for the action webhook response, expecting String');
  const int = scalar('Int', { kind: 'builtin', name: 'Int' });
  assert.equal(msg(int, null), 'ok');
  assert.equal(msg(int, 2.5), 'ok');
  assert.equal(msg(int, [1]), 'unexpected: got array for the action webhook response, expecting Int');
  assert.equal(msg(int, { n: 1 }), 'unexpected: got object for the action webhook response, expecting Int');
  assert.equal(msg(scalar('ID!', { kind: 'builtin', name: 'ID' }), 'x'), 'ok');
  assert.equal(msg(scalar('Boolean', { kind: 'builtin', name: 'Boolean' }), 'true'), 'unexpected: got scalar String for the action webhook response, expecting Boolean');
  const json = scalar('Json!', { kind: 'custom', name: 'Json' });
  assert.equal(msg(json, { any: [1, 'x'] }), 'ok');
  assert.equal(msg(json, null), 'unexpected: got null for the action webhook response');
  const role = scalar('[Role!]', { kind: 'enum', name: 'Role', values: ['admin', 'member'] });
  assert.equal(msg(role, ['admin', 'member']), 'ok');
  assert.equal(msg(role, ['owner']), 'unexpected: got "owner" for the action webhook response, expecting a value of enum Role');
  assert.equal(msg(role, [1]), 'unexpected: got scalar Number for the action webhook response, expecting Role');
  assert.equal(msg(role, [null]), 'unexpected: got null for the action webhook response');
});

test('action input from literals and from this request\'s variables', () => {
  const args: Array<[string, any]> = [
    ['lit', { kind: 'scalar', type: GraphQLString, value: 'a' }],
    ['v', { kind: 'scalar', type: GraphQLString, value: 'stale', variable: { name: 'x', path: [] } }],
    ['o', { kind: 'object', type: null, fields: [['n', { kind: 'null', variable: { name: 'y', path: ['k'] } }]] }],
  ];
  assert.deepEqual(actionInput(args, { x: 'fresh', y: { k: 3 } }), { lit: 'a', v: 'fresh', o: { n: 3 } });
});
