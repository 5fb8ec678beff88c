/**
 * The quick variable check (one walk per request on a cached plan) against the full coercion:
 * wherever it answers, it gives the same values and the same plan key; on every invalid input it
 * declines, so the full coercion runs and throws Hasura's error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { coerceVariables, declaredVariables, quickVariables } from '../../../src/graphql/index.js';
import { JsonBigNumber } from '../../../src/lib/index.js';
import { signatureFromShapes, variableSignature } from '../../../src/planner/signature.js';

const schema = buildSchema(`
  scalar uuid
  scalar bigint
  scalar numeric
  scalar jsonb
  scalar timestamptz
  scalar _text
  enum color { red green }
  input note_insert_input { author: String, body: String, score: Int, tags: [String!], color: color, data: jsonb }
  input int_cmp { _eq: Int, _in: [Int!], _is_null: Boolean }
  input note_bool_exp { _and: [note_bool_exp!], _not: note_bool_exp, score: int_cmp, required: req }
  input req { must: Int!, maybe: Int! = 3 }
  type Query { x(a: Int): Int }
`);

function declared(vars: string) {
  const op = parse(`query (${vars}) { x }`).definitions[0] as OperationDefinitionNode;
  const defs = op.variableDefinitions ?? [];
  return { declared: declaredVariables(schema, defs), defs };
}

function same(vars: string, given: Record<string, unknown> | undefined) {
  const { declared: d, defs } = declared(vars);
  const full = coerceVariables(d, defs, given);
  const quick = quickVariables(d, defs, given);
  assert.ok(quick, `quick path declined valid input ${JSON.stringify(given)} for (${vars})`);
  assert.deepEqual(quick.values, full.values);
  for (const baked of [new Set<string>(), new Set(d.slice(0, 1).map((v) => v.name))]) {
    assert.equal(signatureFromShapes(d, quick.shapes, quick.values, baked), variableSignature(d, full.values, baked));
  }
}

function declines(vars: string, given: unknown) {
  const { declared: d, defs } = declared(vars);
  assert.throws(() => coerceVariables(d, defs, given as Record<string, unknown>), `the full coercion accepts ${JSON.stringify(given)}`);
  assert.equal(quickVariables(d, defs, given as Record<string, unknown>), undefined, `quick path accepted ${JSON.stringify(given)}`);
}

test('valid variables: same values and same plan key as the full coercion', () => {
  same('$a: Int, $b: String!', { a: 1, b: 'x' });
  same('$a: Int, $b: String', { a: null });
  same('$a: Int = 10, $b: [Int!]', { b: 5 });
  same('$a: Int = 10', { a: null });
  same('$o: [note_insert_input!]!', { o: [{ author: 'a', body: 'b', score: 1 }, { score: 2, author: 'c' }, { tags: ['x'], color: 'red', data: { any: [1] } }] });
  same('$o: [note_insert_input!]!', { o: { author: 'single' } });
  same('$o: [note_insert_input!]!', { o: [] });
  same('$w: note_bool_exp', { w: { _and: [{ score: { _eq: 1 } }, { _not: { score: { _in: [1, 2] } } }], required: { must: 1 } } });
  same('$w: note_bool_exp', { w: { score: { _is_null: true } } });
  same('$w: note_bool_exp', { w: { score: { _is_null: false } } });
  same('$c: color, $cs: [color]', { c: 'green', cs: ['red', null] });
  same('$u: uuid, $n: bigint, $m: numeric, $t: timestamptz, $arr: _text', {
    u: '0bd5f3c1-9d60-4d52-9b79-0c2a3f2b5f3e', n: new JsonBigNumber('9007199254740993'), m: '1.50', t: '2020-01-01T00:00:00Z', arr: ['a', null],
  });
  same('$j: jsonb', { j: [{ deep: { x: null } }] });
  same('$b: [Boolean]', { b: [true, false, null] });
  same('$a: Int', undefined);
});

test('invalid variables: the quick path declines, the full coercion throws', () => {
  declines('$a: Int', { a: 'x' });
  declines('$a: Int', { a: 2 ** 31 });
  declines('$a: Int', { a: 1.5 });
  declines('$a: Int!', { a: null });
  declines('$a: Int!', {});
  declines('$a: Int', { b: 1 });
  declines('$b: String', { b: 1 });
  declines('$b: Boolean', { b: 'true' });
  declines('$o: [note_insert_input!]!', { o: [{ author: 'a' }, null] });
  declines('$o: [note_insert_input!]!', { o: [{ nope: 1 }] });
  declines('$o: [note_insert_input!]!', { o: [[{ author: 'a' }]] });
  declines('$o: note_insert_input', { o: 'text' });
  declines('$o: note_insert_input', { o: new JsonBigNumber('12345678901234567890') });
  declines('$w: note_bool_exp', { w: { required: { maybe: 1 } } });
  declines('$c: color', { c: 'blue' });
  declines('$c: color', { c: 1 });
  declines('$u: uuid', { u: 'not-a-uuid' });
  declines('$n: bigint', { n: '12x' });
  declines('$t: timestamptz', { t: 'yesterday-ish' });
});

test('runs of equal item shapes are counted, so list lengths and key orders still tell plans apart', () => {
  same('$o: [note_insert_input!]!', { o: Array.from({ length: 100 }, (_, i) => ({ author: `a${i}`, body: 'b', score: i })) });
  const { declared: d, defs } = declared('$o: [note_insert_input!]!');
  const key = (o: unknown[]) => quickVariables(d, defs, { o })!.shapes[0];
  assert.equal(key([{ score: 1 }, { score: 2 }, { author: 'x' }]), '[{"score":S}*2,{"author":S}]');
  assert.notEqual(key([{ score: 1 }, { score: 2 }]), key([{ score: 1 }, { score: 2 }, { score: 3 }]));
  assert.notEqual(key([{ score: 1, author: 'a' }]), key([{ author: 'a', score: 1 }]));
});

test('an input object\'s shape is rebuilt whenever its keys or their shapes differ from the one before, nested ones included', () => {
  const { declared: d, defs } = declared('$o: [note_insert_input!]!, $w: note_bool_exp');
  const shapes = (o: unknown[], w: unknown = null) => quickVariables(d, defs, { o, w })!.shapes;
  // a prefix of the previous object, then the longer one again, then a null where a value was
  assert.equal(shapes([{ author: 'a', score: 1 }, { author: 'b' }, { author: 'c', score: 2 }, { author: null, score: 3 }])[0],
    '[{"author":S,"score":S},{"author":S},{"author":S,"score":S},{"author":N,"score":S}]');
  assert.equal(shapes([{}, { score: 1 }, {}])[0], '[{},{"score":S},{}]');
  // each key checked by its own field's type whatever the previous object held at that place
  assert.equal(quickVariables(d, defs, { o: [{ author: 'a', score: 1 }, { score: 'x', author: 'b' }] }), undefined);
  assert.equal(quickVariables(d, defs, { o: [{ author: 'a', score: 1 }, { author: 2, score: 1 }] }), undefined);
  assert.equal(quickVariables(d, defs, { o: [{ author: 'a', score: 1 }, { author: 'b', score: 2.5 }] }), undefined);
  assert.equal(shapes([{ author: 'a', score: 1 }, { score: 2, author: 'b' }, { score: 3, author: 'c' }])[0], '[{"author":S,"score":S},{"score":S,"author":S}*2]');
  assert.equal(shapes([{ color: 'red' }, { color: 'green' }, { color: 'green' }])[0], '[{"color":E"red"},{"color":E"green"}*2]');
  // the same input type inside itself: each level keeps its own shape
  const w = { _and: [{ score: { _eq: 1 } }, { _not: { score: { _in: [1, 2] } } }, { score: { _eq: 2 } }], score: { _is_null: true } };
  assert.equal(shapes([], w)[1], '{"_and":[{"score":{"_eq":S}},{"_not":{"score":{"_in":L}}},{"score":{"_eq":S}}],"score":{"_is_null":T}}');
  assert.equal(shapes([], { _not: { _not: { score: { _eq: 1 } } } })[1], '{"_not":{"_not":{"score":{"_eq":S}}}}');
  assert.equal(shapes([], { _not: { _not: {} } })[1], '{"_not":{"_not":{}}}');
  same('$w: note_bool_exp', { w });
});
