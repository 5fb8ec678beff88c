/**
 * The console's action SDL: an action written as one field of `type Mutation` / `type Query` and its
 * types as SDL become the metadata's definition and custom types, print back to the same SDL, merge
 * with the types already there (an object keeps its relationships), and give a handler skeleton.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actionToSdl, expressSkeleton, mergeTypes, parseActionSdl, parseTypesSdl, typesToSdl } from '../../../console/src/actionSdl.js';

test('an action field becomes its signature: name, type, arguments, output type, description', () => {
  assert.deepEqual(parseActionSdl('type Mutation {\n  """Say hi"""\n  greet(name: String!, tags: [String!]): Greeting!\n}'), {
    name: 'greet', type: 'mutation', arguments: [{ name: 'name', type: 'String!' }, { name: 'tags', type: '[String!]' }], output_type: 'Greeting!', description: 'Say hi',
  });
  assert.equal(parseActionSdl('type Query { now: String }').type, 'query');
  assert.equal(parseActionSdl('extend type Query { now: String }').name, 'now');
});

test('an action SDL with other definitions, several fields or none is refused with what to do', () => {
  assert.throws(() => parseActionSdl('type Mutation { a: Int b: Int }'), /exactly one field/);
  assert.throws(() => parseActionSdl('type Mutation { a: Out } type Out { x: Int }'), /types go in the types editor/);
  assert.throws(() => parseActionSdl('type Foo { a: Int }'), /type Mutation/);
  assert.throws(() => parseActionSdl('type Mutation {'), /Syntax Error/);
});

test('types SDL becomes custom types of each kind; root types and other definitions are refused', () => {
  assert.deepEqual(parseTypesSdl('"""out"""\ntype Out { id: Int! }\ninput In { name: String }\nenum Color { RED GREEN }\nscalar Date'), {
    objects: [{ name: 'Out', description: 'out', fields: [{ name: 'id', type: 'Int!' }] }],
    input_objects: [{ name: 'In', fields: [{ name: 'name', type: 'String' }] }],
    enums: [{ name: 'Color', values: [{ value: 'RED' }, { value: 'GREEN' }] }],
    scalars: [{ name: 'Date' }],
  });
  assert.deepEqual(parseTypesSdl('  '), { scalars: [], enums: [], input_objects: [], objects: [] });
  assert.throws(() => parseTypesSdl('type Query { a: Int }'), /belongs in the action definition/);
  assert.throws(() => parseTypesSdl('interface I { a: Int }'), /only type, input, enum and scalar/);
});

test('merging replaces types of the same name, keeps the others and an object\'s relationships', () => {
  const rel = { name: 'author', type: 'object' as const, remote_table: { schema: 'public', name: 'author' }, field_mapping: { author_id: 'id' } };
  const existing = { objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int' }], relationships: [rel] }, { name: 'Other', fields: [{ name: 'x', type: 'Int' }] }], scalars: [{ name: 'Date' }] };
  const merged = mergeTypes(existing, parseTypesSdl('type Out { id: Int author_id: Int }'));
  assert.deepEqual(merged, {
    scalars: [{ name: 'Date' }],
    objects: [{ name: 'Other', fields: [{ name: 'x', type: 'Int' }] }, { name: 'Out', fields: [{ name: 'id', type: 'Int' }, { name: 'author_id', type: 'Int' }], relationships: [rel] }],
  });
});

test('an action and the types it reaches print back to SDL that parses to the same thing', () => {
  const types = parseTypesSdl('type Out { id: Int nested: Inner }\ntype Inner { c: Color }\nenum Color { RED }\ninput In { n: Int }\ntype Unused { z: Int }');
  const def = { type: 'mutation', arguments: [{ name: 'input', type: 'In!' }], output_type: '[Out]' };
  const sdl = actionToSdl('make', def, 'Makes one');
  assert.deepEqual(parseActionSdl(sdl), { name: 'make', type: 'mutation', arguments: [{ name: 'input', type: 'In!' }], output_type: '[Out]', description: 'Makes one' });
  const printed = typesToSdl(types, def);
  assert.doesNotMatch(printed, /Unused/);
  const again = parseTypesSdl(printed);
  assert.deepEqual(again.objects?.map((o) => o.name).sort(), ['Inner', 'Out']);
  assert.deepEqual(again.input_objects?.map((o) => o.name), ['In']);
  assert.deepEqual(again.enums, [{ name: 'Color', values: [{ value: 'RED' }] }]);
});

test('the Express skeleton posts at the handler\'s path, reads the arguments and answers the output type\'s shape', () => {
  const sig = parseActionSdl('type Mutation { greet(name: String!, times: Int): [Greeting] }');
  const code = expressSkeleton(sig, parseTypesSdl('type Greeting { text: String n: Int ok: Boolean }'), 'http://handlers:3000/api/greet');
  assert.match(code, /app\.post\("\/api\/greet"/);
  assert.match(code, /const \{ name, times \} = req\.body\.input;/);
  assert.match(code, /return res\.json\(\[\{ text: "<value>", n: 0, ok: false \}\]\);/);
  // A handler URL from an environment variable ({{ENV}}/path) falls back to the action's name.
  assert.match(expressSkeleton(sig, {}, '{{HANDLERS}}/greet'), /app\.post\("\/greet"/);
});
