/**
 * Remote schema permissions in the pure schema-cache build (metadata/schemaCache/remotePermissions.ts):
 * the role's view, inconsistent permissions, and the union an inherited role gets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSchema, introspectionFromSchema } from 'graphql';
import { buildSchemaCacheFull, remoteViewFor, type Metadata, type RemoteIntrospection } from '../../../src/metadata/index.js';
import { authorArticle } from './fixtures.js';

const intro = introspectionFromSchema(buildSchema('type Query { notes(owner: Int!, tag: String, limit: Int): [Note] } type Note { id: Int text: String }'));
const def = { url: 'http://127.0.0.1:1/graphql' };
const inputs = new Map<string, RemoteIntrospection>([['r', { definitionKey: JSON.stringify(def), result: { ok: true, introspection: intro } }]]);
const perm = (role: string, args: string) => ({ role, definition: { schema: `type Query { notes(${args}): [Note] } type Note { id: Int }` } });

function build(permissions: unknown[], inherited = [{ role_name: 'both', role_set: ['a', 'b'] }]) {
  const md: Metadata = { version: 2, tables: [], remote_schemas: [{ name: 'r', definition: def, permissions }], inherited_roles: inherited } as Metadata;
  const r = buildSchemaCacheFull(md, authorArticle(), undefined, inputs);
  r.cache.remoteSchemaPermissions = true;
  return r;
}

test('a role\'s view: its fields and arguments, presets apart; no permission, no view; admin sees all', () => {
  const { cache } = build([perm('a', 'owner: Int! @preset(value: "x-svc-user-id"), limit: Int')]);
  const remote = cache.remoteSchemas!.get('r')!;
  const view = remoteViewFor(cache, remote, 'a')!;
  assert.deepEqual(view.queryRoot!.fields[0].args.map((x) => x.name), ['limit']);
  assert.deepEqual([...view.argPresets.get('Query.notes')!.keys()], ['owner']);
  assert.deepEqual((view.types.get('Note') as unknown as { fields: Array<{ name: string }> }).fields.map((f) => f.name), ['id']);
  assert.equal(remoteViewFor(cache, remote, 'other'), null);
  assert.equal(remoteViewFor(cache, remote, 'admin'), undefined);
  assert.ok(cache.roles.includes('a'));
  cache.remoteSchemaPermissions = false;
  assert.equal(remoteViewFor(cache, remote, 'other'), undefined, 'flag off: the whole remote');
});

test('a permission that does not fit the remote is inconsistent; the others stay', () => {
  const r = build([perm('a', 'owner: Int!'), { role: 'b', definition: { schema: 'type Query { gone: Int }' } }]);
  assert.deepEqual(r.cache.inconsistentObjects.map((o) => o.type), ['remote_schema_permission']);
  assert.match(r.cache.inconsistentObjects[0].reason, /field "gone" of "Query" does not exist in the upstream remote schema/);
  assert.deepEqual([...r.cache.remoteSchemas!.get('r')!.permissions!.keys()], ['a']);
});

test('inherited roles: union; a free argument wins; equal presets stay; different presets drop the argument', () => {
  const view = (a: string, b: string) => {
    const { cache } = build([perm('a', a), perm('b', b)]);
    const v = remoteViewFor(cache, cache.remoteSchemas!.get('r')!, 'both')!;
    return { args: v.queryRoot!.fields[0].args.map((x) => x.name).sort(), presets: [...(v.argPresets.get('Query.notes')?.keys() ?? [])].sort() };
  };
  assert.deepEqual(view('owner: Int! @preset(value: 1), limit: Int', 'owner: Int!, tag: String'), { args: ['limit', 'owner', 'tag'], presets: [] });
  assert.deepEqual(view('owner: Int! @preset(value: 1)', 'owner: Int! @preset(value: 1), tag: String'), { args: ['tag'], presets: ['owner'] });
  assert.deepEqual(view('owner: Int! @preset(value: 1)', 'owner: Int! @preset(value: 2)'), { args: [], presets: [] });
});
